package proxy

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
)

// BenchmarkTaskCheck measures what following tasks adds to the answer of
// an ordinary successful tools/call (no task handle in it): the rewrite
// the proxy ran before (rewrite) and the one it runs now (rewriteTask),
// side by side in one run, for a small and a 64 KiB result.
func BenchmarkTaskCheck(b *testing.B) {
	g := newGuard()
	ctx := context.Background()
	for _, size := range []int{100, 64 << 10} {
		text := strings.Repeat("a", size)
		msg := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + text + `"}]}}`)
		m, err := rpc.Parse(msg)
		if err != nil {
			b.Fatal(err)
		}
		c := &call{id: []byte("7"), tool: "echo"}
		name := "small"
		if size > 1000 {
			name = "64KiB"
		}
		b.Run(name+"/before", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if out := g.rewrite(ctx, c, msg, &m); !same(out, msg) {
					b.Fatal("rewritten")
				}
			}
		})
		b.Run(name+"/after", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if out := g.rewriteTask(ctx, c, msg, &m); !same(out, msg) {
					b.Fatal("rewritten")
				}
			}
		})
	}
}
