package otel_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/otel"
)

var okResult = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"id":"P-1001","name":"Mechanical keyboard","price":129.0}`}}}

func okHandler(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return okResult, nil
}

func noopOptions() []otel.Option {
	return []otel.Option{otel.WithTracerProvider(tracenoop.NewTracerProvider()), otel.WithMeterProvider(metricnoop.NewMeterProvider())}
}

func sdkOptions() []otel.Option {
	return []otel.Option{
		otel.WithTracerProvider(sdktrace.NewTracerProvider()),
		otel.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))),
	}
}

// BenchmarkToolCall compares, in one run, a successful tools/call from a
// real go-sdk client over the in-memory transport: bare go-sdk, behind
// gosdk.Middleware, and behind otel.Middleware plus gosdk.Middleware with
// no provider configured (the API's no-op ones), with the global providers
// while no SDK is registered (they delegate, so the layer runs in full),
// and with the real SDK recording every span and the histogram:
//
//	go test -run '^$' -bench ToolCall -benchmem -count 6 ./gosdk/otel | benchstat -col /variant -
func BenchmarkToolCall(b *testing.B) {
	variants := []struct {
		name string
		mws  []mcp.Middleware
	}{
		{"variant=bare", nil},
		{"variant=gosdk", []mcp.Middleware{gosdk.Middleware()}},
		{"variant=otel-noop+gosdk", []mcp.Middleware{otel.Middleware(noopOptions()...), gosdk.Middleware()}},
		{"variant=otel-global-unset+gosdk", []mcp.Middleware{otel.Middleware(), gosdk.Middleware()}},
		{"variant=otel-sdk+gosdk", []mcp.Middleware{otel.Middleware(sdkOptions()...), gosdk.Middleware()}},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			s := mcp.NewServer(&mcp.Implementation{Name: "bench"}, nil)
			if len(v.mws) > 0 {
				s.AddReceivingMiddleware(v.mws...)
			}
			s.AddTool(&mcp.Tool{Name: "shop_get_product", InputSchema: json.RawMessage(`{"type":"object"}`)}, okHandler)
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
			params := &mcp.CallToolParams{Name: "shop_get_product", Arguments: map[string]any{"product_id": "P-1001"}}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
					b.Fatalf("call failed: %v %v", err, res)
				}
			}
		})
	}
}

// BenchmarkLayer measures otel.Middleware alone around a handler that
// returns at once, without go-sdk around it:
//
//	go test -run '^$' -bench Layer -benchmem -count 6 ./gosdk/otel | benchstat -col /variant -
func BenchmarkLayer(b *testing.B) {
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return okResult, nil }
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "shop_get_product"}}
	variants := []struct {
		name string
		mw   mcp.Middleware
	}{
		{"variant=none", func(h mcp.MethodHandler) mcp.MethodHandler { return h }},
		{"variant=otel-noop", otel.Middleware(noopOptions()...)},
		{"variant=otel-global-unset", otel.Middleware()},
		{"variant=otel-sdk", otel.Middleware(sdkOptions()...)},
	}
	ctx := context.Background()
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			h := v.mw(next)
			b.ReportAllocs()
			for b.Loop() {
				_, _ = h(ctx, "tools/call", req)
			}
		})
	}
}

// With no provider configured, the layer costs no allocation: it is not
// there. A method left out by WithMethods passes through without one.
func TestNoProviderAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return okResult, nil }
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "shop_get_product"}}
	ctx := context.Background()
	for name, mw := range map[string]mcp.Middleware{
		"no-op providers":   otel.Middleware(noopOptions()...),
		"a method left out": otel.Middleware(append(sdkOptions(), otel.WithMethods("resources/read"))...),
	} {
		h := mw(next)
		if n := testing.AllocsPerRun(1000, func() { _, _ = h(ctx, "tools/call", req) }); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, n)
		}
	}
}
