package otel_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/otel/oteltest"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
	"github.com/mcpguard/mcpguard/gosdk/otel"
)

// failures is a testing.TB that keeps what a gosdktest.Session reports.
type failures struct {
	testing.TB
	mu  sync.Mutex
	got []string
}

func (f *failures) Helper() {}
func (f *failures) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, fmt.Sprintf(format, args...))
}

// leakyAuth answers an expired token with a JSON-RPC error carrying it.
func leakyAuth(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if c, ok := req.(*mcp.CallToolRequest); ok && strings.Contains(string(c.Params.Arguments), "expired") {
			return nil, errors.New("unauthorized: token sk-live-4f9a8b7c6d5e4f3a2b1c0d9e expired")
		}
		return next(ctx, method, req)
	}
}

// Tracing belongs outside gosdk.Middleware, to see the final result, and
// gosdktest's check of the chain's order lets it stand there; a
// middleware of the server's between the tracing and gosdk.Middleware is
// still outside the chain, and still fails the test, as it does without
// tracing.
func TestTracingOutsideTheChainPassesTheHarnessCheck(t *testing.T) {
	t.Parallel()
	rec := oteltest.NewRecorder()
	traced := func() mcp.Middleware {
		return otel.Middleware(otel.WithTracerProvider(rec.TracerProvider), otel.WithMeterProvider(rec.MeterProvider))
	}
	for _, tc := range []struct {
		name   string
		layers []mcp.Middleware // innermost first
		fails  bool
	}{
		{"otel outside the chain", []mcp.Middleware{gosdk.Middleware(), traced()}, false},
		{"otel twice outside the chain", []mcp.Middleware{gosdk.Middleware(), traced(), traced()}, false},
		{"otel inside the chain", []mcp.Middleware{traced(), gosdk.Middleware()}, false},
		{"auth between otel and the chain", []mcp.Middleware{gosdk.Middleware(), leakyAuth, traced()}, true},
		{"auth outside otel", []mcp.Middleware{gosdk.Middleware(), traced(), leakyAuth}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
			for _, l := range tc.layers {
				s.AddReceivingMiddleware(l)
			}
			s.AddTool(&mcp.Tool{Name: toolName, InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
				})
			f := &failures{TB: t}
			gosdktest.Connect(f, s).Call(toolName, nil)
			f.mu.Lock()
			defer f.mu.Unlock()
			if tc.fails != (len(f.got) == 1 && strings.Contains(f.got[0], "outside it")) || len(f.got) > 1 {
				t.Fatalf("harness failures %q, want a failure: %v", f.got, tc.fails)
			}
		})
	}
}
