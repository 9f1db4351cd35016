package limit_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/limit"
)

// layered is each layer around a handler that does nothing.
func layered() map[string]mcp.MethodHandler {
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return res, nil }
	return map[string]mcp.MethodHandler{
		"Rate":        limit.Rate(rate.Limit(1e9), 1<<30)(next),
		"Concurrency": limit.Concurrency(8)(next),
		"Rate+Concurrency per tool": limit.Rate(rate.Limit(1e9), 1<<30, limit.WithPerTool())(
			limit.Concurrency(8, limit.WithPerTool())(next)),
	}
}

var callReq = &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: []byte(`{}`)}}

// TestAllowedCallsDoNotAllocate: an allowed call through Rate and a call
// that gets a slot at once cost no allocation, per tool or not.
func TestAllowedCallsDoNotAllocate(t *testing.T) {
	ctx := context.Background()
	for name, h := range layered() {
		if _, err := h(ctx, "tools/call", callReq); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(1000, func() { _, _ = h(ctx, "tools/call", callReq) }); n != 0 {
			t.Errorf("%s: an allowed call allocates %v times", name, n)
		}
	}
	// A TokenInfo user's key is built per call: one small allocation.
	h := layered()["Rate"]
	authed := &mcp.CallToolRequest{Params: callReq.Params, Extra: &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "alice"}}}
	if n := testing.AllocsPerRun(1000, func() { _, _ = h(ctx, "tools/call", authed) }); n > 1 {
		t.Errorf("Rate: an allowed call of a TokenInfo user allocates %v times", n)
	}
}

// BenchmarkLayer measures each layer alone around a handler that does
// nothing, on an allowed call, beside the handler alone and Timeout (a
// goroutine, a channel and a timer per call).
func BenchmarkLayer(b *testing.B) {
	ctx := context.Background()
	hs := layered()
	res := &mcp.CallToolResult{}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return res, nil }
	hs["none"] = next
	hs["Timeout"] = limit.Timeout(time.Minute)(next)
	for name, h := range hs {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = h(ctx, "tools/call", callReq)
			}
		})
	}
}

// BenchmarkToolCall compares a successful tools/call through go-sdk's
// in-memory transport, in one run: bare go-sdk, gosdk.Middleware, and
// gosdk.Middleware with Rate, Concurrency and Timeout:
//
//	go test -run '^$' -bench ToolCall -count 6 ./gosdk/limit
func BenchmarkToolCall(b *testing.B) {
	for _, bc := range []struct {
		name string
		mw   []mcp.Middleware
	}{
		{"bare", nil},
		{"gosdk.Middleware", []mcp.Middleware{gosdk.Middleware()}},
		{"gosdk.Middleware+Rate+Concurrency", []mcp.Middleware{gosdk.Middleware(gosdk.WithLimits(
			limit.Rate(rate.Limit(1e9), 1<<30), limit.Concurrency(8)))}},
		{"gosdk.Middleware+Rate+Concurrency+Timeout", []mcp.Middleware{gosdk.Middleware(gosdk.WithLimits(
			limit.Rate(rate.Limit(1e9), 1<<30), limit.Concurrency(8), limit.Timeout(time.Minute)))}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cs := benchSession(b, bc.mw)
			params := &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatalf("call failed: %v %v", err, res)
				}
			}
		})
	}
}

func benchSession(b *testing.B, mw []mcp.Middleware) *mcp.ClientSession {
	b.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "bench"}, nil)
	s.AddReceivingMiddleware(mw...)
	s.AddTool(&mcp.Tool{Name: tool, InputSchema: objectSchema}, ok)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs
}
