package proxy_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/core/envelope"
	coreotel "github.com/mcpguard/mcpguard/core/otel"
	"github.com/mcpguard/mcpguard/core/otel/oteltest"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// The proxy records core/otel/oteltest's table of outcomes as both fronts
// do, the same span and metric for each (issue 46: the telemetry outcome
// of every consumer, from one table). Its upstream is a bare server, so a
// handler's Go error reaches it as a JSON-RPC error's text: the fronts'
// internal_error case, an unclassified Go error whose text they hide, is
// text the proxy shows redacted as execution_failed, and is left out.
func TestTelemetryCasesOverStdio(t *testing.T) {
	for _, c := range oteltest.Cases() {
		if c.Kind == oteltest.Fail && c.Code == envelope.InternalError {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			r := newRig()
			opts := []proxy.Option{proxy.WithTimeout(time.Minute)}
			tel := []coreotel.Option{coreotel.WithTracerProvider(r.TracerProvider), coreotel.WithMeterProvider(r.MeterProvider)}
			if c.Results {
				tel = append(tel, coreotel.WithResults())
			}
			tool, arguments := caseCall(t, c)
			switch c.Kind {
			case oteltest.Hang:
				opts = []proxy.Option{proxy.WithTimeout(50 * time.Millisecond)}
			case oteltest.RateLimited:
				opts = append(opts, proxy.WithRate(0.001, 1))
			}
			s := start(t, append(opts, proxy.WithTelemetry(tel...))...)
			t.Cleanup(func() { r.balanced(t) })
			s.request("tools/list", `{}`)
			var resp map[string]any
			for range c.Calls() {
				r.Spans.Reset()
				resp = s.call(tool, arguments)
			}
			var env *envelope.Envelope
			if c.Code != "" {
				env = parsed(t, resp)
			}
			oteltest.CheckCall(t, r.Recorder, c, env, stdioExpect(tool, s.next))
		})
	}
}

// caseCall is the child's tool and arguments that end as case c does.
func caseCall(t *testing.T, c oteltest.Case) (tool, arguments string) {
	t.Helper()
	switch c.Kind {
	case oteltest.Succeed, oteltest.RateLimited:
		return "echo", args
	case oteltest.Texts:
		return "texts", `{}`
	case oteltest.Panic:
		return "panics", `{}`
	case oteltest.Hang:
		return "hang", `{}`
	case oteltest.Fail:
		b, _ := json.Marshal(map[string]string{"case": c.Name})
		return "rpc_error", string(b)
	}
	t.Fatalf("no call of the child ends as %v", c.Kind)
	return "", ""
}
