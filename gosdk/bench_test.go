package gosdk_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// benchSession connects a client to a server serving the shop_get tool
// (go-sdk's typed handler, schema validation of the arguments and of the
// output included), with the Middleware or bare.
func benchSession(b *testing.B, guarded bool) *mcp.ClientSession {
	b.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "bench"}, nil)
	if guarded {
		s.AddReceivingMiddleware(gosdk.Middleware())
	}
	mcp.AddTool(s, &mcp.Tool{Name: "shop_get", Description: "Get a product by ID."}, getProduct)
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

// BenchmarkToolCall compares a successful tools/call through go-sdk's
// in-memory transport, bare and with gosdk.Middleware, in one run:
//
//	go test -run '^$' -bench ToolCall -count 10 ./gosdk
func BenchmarkToolCall(b *testing.B) {
	for _, bc := range []struct {
		name    string
		guarded bool
	}{{"bare", false}, {"gosdk.Middleware", true}} {
		b.Run(bc.name, func(b *testing.B) {
			cs := benchSession(b, bc.guarded)
			params := &mcp.CallToolParams{Name: "shop_get", Arguments: map[string]any{"id": "p-1"}}
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

// BenchmarkLayer measures the Middleware alone around a handler that does
// nothing: a method it passes through, and a successful tools/call.
func BenchmarkLayer(b *testing.B) {
	ok := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return ok, nil }
	h := gosdk.Middleware()(next)
	ctx := context.Background()
	call := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "shop_get", Arguments: []byte(`{"id":"p-1"}`)}}
	list := &mcp.ListResourcesRequest{Params: &mcp.ListResourcesParams{}}
	b.Run("pass-through", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = h(ctx, "resources/list", list)
		}
	})
	b.Run("tools/call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = h(ctx, "tools/call", call)
		}
	})
}

func TestPassThroughDoesNotAllocate(t *testing.T) {
	ok := &mcp.ListResourcesResult{}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return ok, nil }
	h := gosdk.Middleware(gosdk.WithLogger(gosdktestLogger(t)))(next)
	req := &mcp.ListResourcesRequest{Params: &mcp.ListResourcesParams{}}
	ctx := context.Background()
	if n := testing.AllocsPerRun(100, func() { _, _ = h(ctx, "resources/list", req) }); n != 0 {
		t.Errorf("a passed-through method allocates %v times per call", n)
	}
}

func gosdktestLogger(t *testing.T) *slog.Logger { return gosdktest.NewLog(t).Logger() }
