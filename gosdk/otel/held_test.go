package otel_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/otel/oteltest"
	"github.com/mcpguard/mcpguard/gosdk/limit"
)

// TestAHeldCallIsTracedAsHeld: go-sdk's own 2026-07-28 client calls
// twice over a rate of 10 a second; the second call is held until its
// token and its span and metric say so (oteltest.CheckHeld), read off
// the Note gosdk.Middleware shares with the span. Before this change a
// held call's span was a plain success.
func TestAHeldCallIsTracedAsHeld(t *testing.T) {
	r := newRig(t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}, nil, limit.Rate(10, 1))
	cs := r.s.ClientSession()
	require.Equal(t, "2026-07-28", cs.InitializeResult().ProtocolVersion)
	r.rec.Spans.Reset()
	for range 2 {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: toolName, Arguments: map[string]any{}})
		require.NoError(t, err)
		require.False(t, res.IsError)
	}
	oteltest.CheckHeld(t, r.rec)
}
