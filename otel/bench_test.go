package otel_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/otel"
)

// BenchmarkToolsCall compares, in one run, a successful tools/call through
// HandleMessage behind middleware.Default alone, behind otel.Middleware
// with no-op providers plus Default, with the global providers while no SDK
// is registered (they delegate, so the layer runs in full), and with the
// real SDK recording every span and the histogram (no exporter):
//
//	go test -run '^$' -bench ToolsCall -benchmem -count 6 -cpu 1 ./otel | benchstat -col /variant -
func BenchmarkToolsCall(b *testing.B) {
	success := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(`{"id":"P-1001","name":"Mechanical keyboard","price":129.0}`), nil
	}
	msg := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_get_product","arguments":{"product_id":"P-1001"}}}`)
	sdk := []otel.Option{
		otel.WithTracerProvider(sdktrace.NewTracerProvider()),
		otel.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))),
	}
	noop := []otel.Option{
		otel.WithTracerProvider(tracenoop.NewTracerProvider()),
		otel.WithMeterProvider(metricnoop.NewMeterProvider()),
	}
	variants := []struct {
		name string
		otel []otel.Option // nil: no otel layer
	}{
		{"variant=default", nil},
		{"variant=otel-noop+default", noop},
		{"variant=otel-global-unset+default", []otel.Option{}},
		{"variant=otel-sdk+default", sdk},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			s := server.NewMCPServer("bench", "1.0.0", server.WithToolCapabilities(false))
			if v.otel != nil {
				s.Use(otel.Middleware(v.otel...))
			}
			s.Use(middleware.Default()...)
			s.AddTool(mcp.NewTool("shop_get_product", mcp.WithString("product_id", mcp.Required())), success)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				_ = s.HandleMessage(ctx, msg)
			}
		})
	}
}

// BenchmarkLayer measures the otel layer alone, wrapped once around a
// successful handler, without mcp-go around it:
//
//	go test -run '^$' -bench Layer -benchmem -count 6 -cpu 1 ./otel | benchstat -col /variant -
func BenchmarkLayer(b *testing.B) {
	res := mcp.NewToolResultText("ok")
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil }
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "shop_get_product"}}
	variants := []struct {
		name string
		mw   server.ToolHandlerMiddleware
	}{
		{"variant=none", func(next server.ToolHandlerFunc) server.ToolHandlerFunc { return next }},
		{"variant=otel-noop", otel.Middleware(otel.WithTracerProvider(tracenoop.NewTracerProvider()), otel.WithMeterProvider(metricnoop.NewMeterProvider()))},
		{"variant=otel-global-unset", otel.Middleware()},
		{"variant=otel-sdk", otel.Middleware(
			otel.WithTracerProvider(sdktrace.NewTracerProvider()),
			otel.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))))},
	}
	ctx := context.Background()
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			wrapped := v.mw(h)
			b.ReportAllocs()
			for b.Loop() {
				_, _ = wrapped(ctx, req)
			}
		})
	}
}
