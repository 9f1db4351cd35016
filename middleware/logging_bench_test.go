package middleware_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
)

// BenchmarkLogging measures the Logging layer alone, wrapped once, beside
// the bare handler in the same run: a logger whose level drops the record
// (the classification only), and a JSON handler that writes it.
//
//	go test -run '^$' -bench Logging -benchmem -count 6 ./middleware
func BenchmarkLogging(b *testing.B) {
	ok := mcp.NewToolResultText("ok")
	failed := envelope.ErrorResult(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "shop_get_product"}}, envelope.ErrNotFound)
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "shop_get_product", Arguments: map[string]any{"product_id": "P-1001"}}}
	jsonLog := slog.New(slog.NewJSONHandler(io.Discard, nil))
	for _, v := range []struct {
		name string
		mw   server.ToolHandlerMiddleware
	}{
		{"variant=bare", middleware.Chain()},
		{"variant=disabled", middleware.Logging(slog.New(slog.DiscardHandler))},
		{"variant=json", middleware.Logging(jsonLog)},
		{"variant=json+arguments", middleware.Logging(jsonLog, middleware.WithArguments())},
	} {
		for _, p := range []struct {
			name string
			res  *mcp.CallToolResult
		}{{"success", ok}, {"tool_error", failed}} {
			b.Run(v.name+"/path="+p.name, func(b *testing.B) {
				h := v.mw(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return p.res, nil })
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					_, _ = h(ctx, req)
				}
			})
		}
	}
}
