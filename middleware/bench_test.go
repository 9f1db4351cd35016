package middleware_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	mcprecover "github.com/mcpguard/mcpguard/recover"
	"github.com/mcpguard/mcpguard/redact"
)

var discard = slog.New(slog.DiscardHandler)

// BenchmarkToolsCall compares, in one run, a tools/call through HandleMessage
// on bare mcp-go, on mcp-go's WithRecovery, and on mcpguard's Default chain,
// on the success path and on the error paths.
//
//	go test -run '^$' -bench ToolsCall -benchmem -count 6 ./middleware | benchstat -col /variant -
func BenchmarkToolsCall(b *testing.B) {
	success := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(`{"id":"P-1001","name":"Mechanical keyboard","price":129.0}`), nil
	}
	sentinel := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("product P-1001: %w", envelope.ErrNotFound)
	}
	panics := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("boom") }
	// The request as a transport hands it to HandleMessage. The harness is
	// left out on purpose: its decoding would be measured too.
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_get_product","arguments":{"product_id":"P-1001"}}}`)

	variants := []struct {
		name string
		opts []server.ServerOption
		mws  []server.ToolHandlerMiddleware
		h    server.ToolHandlerFunc
	}{
		{"variant=bare/path=success", nil, nil, success},
		{"variant=mcpgo-recovery/path=success", []server.ServerOption{server.WithRecovery()}, nil, success},
		{"variant=default/path=success", nil, middleware.Default(), success},
		{"variant=default+logging/path=success", nil, middleware.Default(middleware.WithLogger(discard)), success},
		{"variant=bare/path=error", nil, nil, sentinel},
		{"variant=default/path=error", nil, middleware.Default(), sentinel},
		{"variant=mcpgo-recovery/path=panic", []server.ServerOption{server.WithRecovery()}, nil, panics},
		{"variant=default/path=panic", nil, middleware.Default(middleware.WithRecoverOptions(mcprecover.WithLogger(discard))), panics},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			s := server.NewMCPServer("bench", "1.0.0", append([]server.ServerOption{server.WithToolCapabilities(false)}, v.opts...)...)
			if len(v.mws) > 0 {
				s.Use(v.mws...)
			}
			s.AddTool(mcp.NewTool("shop_get_product", mcp.WithString("product_id", mcp.Required())), v.h)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				_ = s.HandleMessage(ctx, msg)
			}
		})
	}
}

// BenchmarkLayer measures each layer alone on the success path, wrapped
// once, as middleware.Wrap uses them: the cost of passing through.
func BenchmarkLayer(b *testing.B) {
	res := mcp.NewToolResultText("ok")
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil }
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "shop_get_product"}}
	layers := []struct {
		name string
		mw   server.ToolHandlerMiddleware
	}{
		{"none", middleware.Chain()},
		{"recover", mcprecover.Middleware()},
		{"redact", redact.Middleware()},
		{"envelope", envelope.Middleware()},
		{"ForTools-skipped", middleware.ForTools(envelope.Middleware(), "other")},
		{"Default", middleware.Chain(middleware.Default()...)},
	}
	for _, l := range layers {
		b.Run(l.name, func(b *testing.B) {
			wrapped := l.mw(h)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				_, _ = wrapped(ctx, req)
			}
		})
	}
	// Under a server, the envelope layer registers its Renderer for the
	// layers inside it (envelope.RendererFrom): one weak-pointer map read.
	b.Run("envelope-under-a-server", func(b *testing.B) {
		wrapped := envelope.Middleware()(h)
		ctx := serverContext(b)
		b.ReportAllocs()
		for b.Loop() {
			_, _ = wrapped(ctx, req)
		}
	})
}

// serverContext returns the context a tool handler gets from a real
// server's HandleMessage: the server, its session, the request's values.
func serverContext(b *testing.B) context.Context {
	var got context.Context
	s := server.NewMCPServer("bench", "0")
	s.AddTool(mcp.NewTool("capture"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got = ctx
		return mcp.NewToolResultText("ok"), nil
	})
	_ = s.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"capture"}}`))
	if got == nil || server.ServerFromContext(got) == nil {
		b.Fatal("no server in the handler's context")
	}
	return got
}
