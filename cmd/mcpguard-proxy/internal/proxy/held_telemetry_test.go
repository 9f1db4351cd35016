package proxy_test

import (
	"io"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/otel/oteltest"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// TestAHeldCallIsTracedAsHeld: two calls of a 2026-07-28 client, one
// after the other, over a rate of 10 a second; the proxy holds the
// second until its token, and its span and metric say so, as the fronts'
// do (oteltest.CheckHeld): core/limit notes the hold on the Note
// core/otel put in the span's context. Before this change the held
// call's span was a plain success.
func TestAHeldCallIsTracedAsHeld(t *testing.T) {
	s, r := traced(t, proxy.WithRate(10, 1))
	for _, id := range []string{"a", "b"} {
		if _, err := io.WriteString(s.in, stampCall(id, true)+"\n"); err != nil {
			t.Fatal(err)
		}
		if got := string(s.read()); strings.Contains(got, `"isError":true`) {
			t.Fatalf("call %s refused: %s", id, got)
		}
	}
	oteltest.CheckHeld(t, r.Recorder)
}
