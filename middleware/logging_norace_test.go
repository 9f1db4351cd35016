//go:build !race

package middleware_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/middleware"
)

// TestLoggingAllocatesNothingWhenTheRecordIsDropped: a logger whose level
// drops the record costs a successful call no allocation. (Without -race,
// which changes what escapes.)
func TestLoggingAllocatesNothingWhenTheRecordIsDropped(t *testing.T) {
	ok := mcp.NewToolResultText("ok")
	h := middleware.Logging(slog.New(slog.DiscardHandler), middleware.WithArguments())(
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return ok, nil })
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "shop_get", Arguments: map[string]any{"id": "p-1"}}}
	ctx := context.Background()
	if n := testing.AllocsPerRun(1000, func() { _, _ = h(ctx, req) }); n != 0 {
		t.Errorf("a successful call through Logging allocates %v times", n)
	}
}
