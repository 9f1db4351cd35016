package recover_test

import (
	"context"
	"encoding/json"
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

// report's MarshalJSON panics, as one that reads a closed connection
// would; mcp-go would call it after every middleware has returned.
type report struct{}

func (report) MarshalJSON() ([]byte, error) {
	panic("connection closed: postgres://app:hunter2@db/shop")
}

// A result the SDK could not encode is encoded inside recover's reach: the
// panic becomes an internal_error, and what the client gets encodes.
func ExampleMiddleware_unencodableResult() {
	logger := slog.New(slog.DiscardHandler) // your server's logger
	h := middleware.Wrap(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := mcp.NewToolResultText("monthly report")
		res.StructuredContent = report{}
		return res, nil
	}, mcprecover.Middleware(mcprecover.WithLogger(logger)))
	res, _ := h(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "shop_report"}})
	env, _ := envelope.FromResult(res)
	_, err := json.Marshal(res)
	fmt.Println(env.ErrorType, err)
	// Output: internal_error <nil>
}
