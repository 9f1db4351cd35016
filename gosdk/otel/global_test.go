package otel_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	otelapi "go.opentelemetry.io/otel"

	"github.com/mcpguard/mcpguard/core/otel/oteltest"
	"github.com/mcpguard/mcpguard/gosdk/otel"
)

// A program that configures no OpenTelemetry gets the API's global
// providers, which record nothing until an SDK is registered: the layer
// then costs no allocation. (No test of this package registers a global
// SDK; TestGlobalSDKRegisteredLater does so in a process of its own.)
func TestGlobalProvidersUnsetAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return okResult, nil }
	h := otel.Middleware()(next)
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "shop_get_product"}}
	ctx := context.Background()
	if n := testing.AllocsPerRun(1000, func() { _, _ = h(ctx, "tools/call", req) }); n != 0 {
		t.Errorf("%v allocations per call with no SDK registered, want 0", n)
	}
}

// An SDK registered after the Middleware was built is used from then on.
func TestGlobalSDKRegisteredLater(t *testing.T) {
	if os.Getenv("MCPGUARD_OTEL_GLOBAL_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestGlobalSDKRegisteredLater$")
		cmd.Env = append(os.Environ(), "MCPGUARD_OTEL_GLOBAL_CHILD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return okResult, nil }
	h := otel.Middleware()(next)
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "shop_get_product"}}
	_, _ = h(context.Background(), "tools/call", req)
	rec := oteltest.NewRecorder()
	if n := len(rec.Spans.GetSpans()); n != 0 {
		t.Fatalf("%d spans before any SDK", n)
	}
	otelapi.SetTracerProvider(rec.TracerProvider)
	otelapi.SetMeterProvider(rec.MeterProvider)
	_, _ = h(context.Background(), "tools/call", req)
	if got := rec.Span(t).Name(); got != "tools/call shop_get_product" {
		t.Errorf("span %q", got)
	}
	rec.Point(t, false)
}
