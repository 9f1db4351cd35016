package otel_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/otel"
)

func TestOverStreamableHTTP(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	hooks := &server.Hooks{}
	s := server.NewMCPServer("t", "0", server.WithHooks(hooks))
	s.Use(otel.Middleware(otel.WithTracerProvider(tp), otel.WithHooks(hooks)))
	s.Use(middleware.Default()...)
	s.AddTool(mcp.NewTool(toolName), failing(envelope.ErrNotFound))
	ts := servertest.NewTestStreamableHTTPServer(s)
	defer ts.Close()

	ctx := context.Background()
	c, err := client.NewStreamableHttpClient(ts.URL + "/mcp")
	require.NoError(t, err)
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "otel-test", Version: "1"}
	initRes, err := c.Initialize(ctx, init)
	require.NoError(t, err)
	req := mcp.CallToolRequest{}
	req.Params.Name = toolName
	res, err := c.CallTool(ctx, req)
	require.NoError(t, err)
	require.True(t, res.IsError)

	got := spans.GetSpans().Snapshots()
	require.Len(t, got, 1)
	attrs := values(got[0].Attributes())
	assert.Equal(t, "tcp", attrs[convTransport])
	assert.Equal(t, "http", attrs["network.protocol.name"])
	assert.Equal(t, c.GetSessionId(), attrs[convSessionID])
	assert.Equal(t, initRes.ProtocolVersion, attrs[convProtocolVersion])
	assert.NotEmpty(t, attrs[convRequestID])
	assert.Equal(t, "not_found", attrs[guardErrorType])
}
