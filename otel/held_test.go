package otel_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/otel/oteltest"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/otel"
)

// TestAHeldCallIsTracedAsHeld: mcp-go's own 2026-07-28 client calls
// twice over a rate of 10 a second; the second call is held until its
// token and its span and metric say so (oteltest.CheckHeld). Before this
// change a held call's span was a plain success.
func TestAHeldCallIsTracedAsHeld(t *testing.T) {
	rec := oteltest.NewRecorder()
	s := server.NewMCPServer("held", "1")
	s.Use(otel.Middleware(otel.WithTracerProvider(rec.TracerProvider), otel.WithMeterProvider(rec.MeterProvider)))
	s.Use(middleware.Default(middleware.WithLimits(limit.Rate(10, 1)))...)
	s.AddTool(mcp.NewTool(toolName), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	c, err := client.NewInProcessClientWithOptions(s, client.WithProtocolVersion("2026-07-28"))
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, c.Start(ctx))
	t.Cleanup(func() { _ = c.Close() })
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = "2026-07-28"
	_, err = c.Initialize(ctx, init)
	require.NoError(t, err)
	for range 2 {
		var req mcp.CallToolRequest
		req.Params.Name = toolName
		res, err := c.CallTool(ctx, req)
		require.NoError(t, err)
		require.False(t, res.IsError)
	}
	oteltest.CheckHeld(t, rec)
}
