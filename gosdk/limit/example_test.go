package limit_test

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/limit"
)

// The limits go inside gosdk.Middleware, cheapest refusal first. A call
// over the rate is answered with an envelope that says how long to wait.
func Example() {
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1.0.0"}, nil)
	s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithLimits(
		limit.Rate(rate.Every(time.Minute), 1),
		limit.Concurrency(8, limit.WithMaxWait(0)),
		limit.Timeout(5*time.Second),
	)))
	s.AddTool(&mcp.Tool{Name: "shop_search", InputSchema: objectSchema}, ok)

	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, _ := s.Connect(ctx, st, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "agent"}, nil).Connect(ctx, ct, nil)
	defer cs.Close()

	for range 2 {
		res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shop_search", Arguments: map[string]any{}})
		text := res.Content[0].(*mcp.TextContent).Text
		if env, ok := gosdk.Parse(text); ok {
			fmt.Println(env.ErrorType, env.Retryable, env.RetryAfterMS > 59_000)
			continue
		}
		fmt.Println(text)
	}
	// Output:
	// ok
	// execution_failed true true
}

// A refusal rendered by the layer alone, outside gosdk.Middleware, is an
// envelope too.
func ExampleRate() {
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	h := limit.Rate(rate.Every(time.Hour), 1)(next)
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "shop_search"}}
	for range 2 {
		res, _ := h(context.Background(), "tools/call", req)
		env, ok := gosdk.Parse(res.(*mcp.CallToolResult).Content[0].(*mcp.TextContent).Text)
		if !ok {
			fmt.Println("allowed")
			continue
		}
		fmt.Println(env.ErrorType, env.RetryAfterMS/1000, "s")
	}
	// Output:
	// allowed
	// execution_failed 3600 s
}
