package otel_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/otel"
)

// A program that configures no OpenTelemetry gets the API's global
// providers, which record nothing until an SDK is registered: the layer
// then costs no allocation. (No test of this package registers a global
// SDK.)
func TestGlobalProvidersUnsetAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	res := mcp.NewToolResultText("ok")
	next := server.ToolHandlerFunc(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil })
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "shop_get_product"}}
	ctx := context.Background()
	h := otel.Middleware()(next)
	if n := testing.AllocsPerRun(1000, func() { _, _ = h(ctx, req) }); n != 0 {
		t.Errorf("tools/call: %v allocations per call with no SDK registered, want 0", n)
	}
	rh := otel.ResourceMiddleware()(func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) { return nil, nil })
	rreq := mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "shop://orders"}}
	if n := testing.AllocsPerRun(1000, func() { _, _ = rh(ctx, rreq) }); n != 0 {
		t.Errorf("resources/read: %v allocations per call with no SDK registered, want 0", n)
	}
}
