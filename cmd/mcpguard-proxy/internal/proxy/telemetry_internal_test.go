package proxy

import (
	"context"
	"testing"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	coreotel "github.com/mcpguard/mcpguard/core/otel"
)

// Without WithTelemetry (no OTel flag), or with both providers the API's
// no-op ones, the proxy has no Instrument: nothing is installed.
func TestNoTelemetryInstallsNothing(t *testing.T) {
	if g := newGuard(); g.in != nil {
		t.Error("an Instrument without WithTelemetry")
	}
	noop := WithTelemetry(coreotel.WithTracerProvider(tracenoop.NewTracerProvider()),
		coreotel.WithMeterProvider(metricnoop.NewMeterProvider()))
	if g := newGuard(noop); g.in != nil {
		t.Error("an Instrument with the no-op providers")
	}
	if g := newGuard(WithTelemetry()); g.in == nil || g.in.Active() {
		t.Error("with the global providers and no SDK registered, the Instrument must exist and be inactive")
	}
}

// The traced path of a request costs no allocation when nothing records:
// no Instrument, or one on the global providers with no SDK registered (no
// test of this package registers one).
func TestTelemetryOffAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what escapes")
	}
	req := rpc.Message{ID: []byte("17"), Method: "tools/call", Params: []byte(`{"name":"echo","arguments":{"text":"hello"}}`)}
	resp := []byte(`{"jsonrpc":"2.0","id":17,"result":{"content":[{"type":"text","text":"hello"}],"isError":false}}`)
	ctx := context.Background()
	for name, g := range map[string]*Guard{"no WithTelemetry": newGuard(), "global providers unset": newGuard(WithTelemetry())} {
		n := testing.AllocsPerRun(200, func() {
			tr := g.trace(ctx, &req, peer{transport: coreotel.TransportStdio})
			tr.answered(resp, nil)
			tr.cancelled()
		})
		if n != 0 {
			t.Errorf("%s: %v allocations per request, want 0", name, n)
		}
	}
}

// A protocol version is on the metric: only one MCP defines is recorded
// as it is, anything else as _OTHER, so a client cannot mint series with
// its header, not even with dates (25 dates were 25 series).
func TestProtocolVersionShape(t *testing.T) {
	for v, want := range map[string]string{
		"2025-06-18": "2025-06-18", "2024-11-05": "2024-11-05", "2025-11-25": "2025-11-25", "": "",
		"2025-6-18": "_OTHER", "2031-01-01": "_OTHER", "2025-06-19": "_OTHER", "hunter2-0f": "_OTHER",
	} {
		if got := protocolVersion(v); got != want {
			t.Errorf("protocolVersion(%q) = %q, want %q", v, got, want)
		}
	}
}
