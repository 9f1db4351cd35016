package limit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
)

func Example() {
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(middleware.Default(middleware.WithLimits(
		limit.Rate(rate.Every(time.Hour), 1), // one call per hour, per caller
		limit.Concurrency(8),
		limit.Timeout(10*time.Second, limit.WithToolTimeout("shop_report", time.Minute)),
	))...)
	s.AddTool(mcp.NewTool("shop_search"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("3 products"), nil
	})

	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_search"}}`
	for range 2 {
		resp := s.HandleMessage(context.Background(), json.RawMessage(call)).(mcp.JSONRPCResponse)
		res := resp.Result.(*mcp.CallToolResult)
		if env, ok := envelope.FromResult(res); ok {
			// retry_after_ms is what is left of the hour: round it, since
			// the first call took a few microseconds.
			wait := (time.Duration(env.RetryAfterMS) * time.Millisecond).Round(time.Minute)
			fmt.Println(env.ErrorType, env.Retryable, wait)
			fmt.Println(strings.Fields(env.NextSteps[0])[0], "…")
			continue
		}
		fmt.Println(res.Content[0].(mcp.TextContent).Text)
	}
	// Output:
	// 3 products
	// execution_failed true 1h0m0s
	// Wait …
}
