package otel_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/otel/oteltest"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
	"github.com/mcpguard/mcpguard/gosdk/otel"
)

// Over streamable HTTP the span has the transport and the session, and the
// shared assertions hold with them.
func TestOverStreamableHTTP(t *testing.T) {
	t.Parallel()
	rec := oteltest.NewRecorder()
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	s.AddReceivingMiddleware(otel.Middleware(otel.WithTracerProvider(rec.TracerProvider), otel.WithMeterProvider(rec.MeterProvider)), gosdk.Middleware())
	var c oteltest.Case
	for _, tc := range oteltest.Cases() {
		if tc.Name == "not_found" {
			c = tc
		}
	}
	s.AddTool(&mcp.Tool{Name: toolName, InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, c.Err })
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	sess := gosdktest.Dial(t, &mcp.StreamableClientTransport{Endpoint: ts.URL, DisableStandaloneSSE: true})
	if sess.ClientSession().ID() == "" {
		t.Fatal("no session ID over streamable HTTP: the test would not check mcp.session.id")
	}
	rec.Spans.Reset()
	res := sess.Call(toolName, map[string]any{"q": oteltest.ArgumentValue}).ExpectError(c.Code)
	oteltest.CheckCall(t, rec, c, res.Envelope, oteltest.Expect{
		Tool:            toolName,
		RequestID:       requestID(t, res),
		ProtocolVersion: sess.ClientSession().InitializeResult().ProtocolVersion,
		SessionID:       sess.ClientSession().ID(),
		Transport:       "tcp",
	})
}
