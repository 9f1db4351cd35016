package limit_test

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/limit"
)

// never is a rate no benchmark exhausts: every call is allowed.
const never = rate.Limit(1e12)

func alice(context.Context, mcp.CallToolRequest) string { return "alice" }

// passing lists each layer on its pass-through path: a call that is allowed.
func passing() []struct {
	name string
	mw   server.ToolHandlerMiddleware
} {
	return []struct {
		name string
		mw   server.ToolHandlerMiddleware
	}{
		{"none", func(next server.ToolHandlerFunc) server.ToolHandlerFunc { return next }},
		{"rate-global", limit.Rate(never, 1<<30)},
		{"rate-keyed", limit.Rate(never, 1<<30, limit.WithKey(alice))},
		{"rate-keyed-per-tool", limit.Rate(never, 1<<30, limit.WithKey(alice), limit.WithPerTool())},
		{"concurrency", limit.Concurrency(64)},
		{"timeout-untimed-tool", limit.Timeout(0, limit.WithToolTimeout("other", time.Second))},
		{"repeats", limit.Repeats(limit.DefaultRepeatFailures, limit.DefaultRepeatWindow)}, // nothing failed yet
	}
}

// BenchmarkAllowed measures what each layer adds to a call it lets through,
// wrapped once:
//
//	go test -run '^$' -bench Allowed -benchmem -count 6 -cpu 1 ./limit | benchstat -col /layer -
func BenchmarkAllowed(b *testing.B) {
	res := mcp.NewToolResultText("ok")
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil }
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "shop_search"}}
	ctx := context.Background()
	for _, l := range passing() {
		b.Run("layer="+l.name, func(b *testing.B) {
			wrapped := l.mw(h)
			b.ReportAllocs()
			for b.Loop() {
				_, _ = wrapped(ctx, req)
			}
		})
	}
}

func TestAllowedCallsDoNotAllocate(t *testing.T) {
	res := mcp.NewToolResultText("ok")
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil }
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "shop_search"}}
	ctx := context.Background()
	for _, l := range passing() {
		wrapped := l.mw(h)
		_, _ = wrapped(ctx, req) // the key's bucket exists from here on
		if n := testing.AllocsPerRun(1000, func() { _, _ = wrapped(ctx, req) }); n != 0 {
			t.Errorf("%s: %.0f allocations per allowed call, want 0", l.name, n)
		}
	}
}

// BenchmarkToolsCall compares, in one run, an allowed tools/call through
// HandleMessage on bare mcp-go and behind each layer alone:
//
//	go test -run '^$' -bench ToolsCall -benchmem -count 6 ./limit | benchstat -col /layer -
func BenchmarkToolsCall(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_search","arguments":{}}}`)
	layers := append(passing(), struct {
		name string
		mw   server.ToolHandlerMiddleware
	}{"timeout", limit.Timeout(time.Hour)})
	for _, l := range layers {
		b.Run("layer="+l.name, func(b *testing.B) {
			s := server.NewMCPServer("bench", "1.0.0", server.WithToolCapabilities(false))
			s.Use(l.mw)
			s.AddTool(tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			})
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				_ = s.HandleMessage(ctx, msg)
			}
		})
	}
}

// BenchmarkRepeatsAfterAFailure measures the guard on a successful call
// once another caller's call has failed: it then reads the call's caller
// and arguments, digests the arguments' canonical form and looks the
// caller up.
//
//	go test -run '^$' -bench 'Allowed/layer=(none|repeats)|RepeatsAfterAFailure' -benchmem ./limit
func BenchmarkRepeatsAfterAFailure(b *testing.B) {
	ok := mcp.NewToolResultText("ok")
	failed := envelope.ErrorResult(context.Background(), mcp.CallToolRequest{}, envelope.New(envelope.NotFound, "no such product"))
	h := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.GetString("sku", "") == "missing" {
			return failed, nil
		}
		return ok, nil
	}
	wrapped := limit.Repeats(3, time.Minute)(h)
	s := server.NewMCPServer("bench", "1.0.0")
	other := s.WithContext(context.Background(), server.NewInProcessSession("other", nil))
	ctx := s.WithContext(context.Background(), server.NewInProcessSession("caller", nil))
	_, _ = wrapped(other, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "shop_get", RawArguments: []byte(`{"sku":"missing"}`), Arguments: map[string]any{"sku": "missing"}}})
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "shop_get", RawArguments: []byte(`{"sku":"SKU-1"}`), Arguments: map[string]any{"sku": "SKU-1"}}}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = wrapped(ctx, req)
	}
}
