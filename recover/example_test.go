package recover_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	mcprecover "github.com/mcpguard/mcpguard/recover"
)

// A panic becomes an internal_error with an incident ID; the panic value
// and the stack go to the logger only.
func ExampleMiddleware() {
	logger := slog.New(slog.DiscardHandler) // your server's logger
	h := middleware.Wrap(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var cache map[string]string
		//lint:ignore SA5000 the nil map write is the panic this example recovers
		cache["postgres://app:hunter2@db/shop"] = "x" // nil map write
		return nil, nil
	}, mcprecover.Middleware(mcprecover.WithLogger(logger)))

	res, err := h(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "shop_query"}})
	env, _ := envelope.FromResult(res)
	fmt.Println(err, res.IsError, env.ErrorType, env.IncidentID != "")
	// Output: <nil> true internal_error true
}
