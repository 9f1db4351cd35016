package proxy

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
)

// BenchmarkAnswer measures what the proxy adds to the answer of an
// ordinary successful tools/call, through the stages that wrap it
// (adapter.go): one the success path passes as it came (plain), and one it
// reads whole (a member named isError in its text), for a small and a 64
// KiB result.
func BenchmarkAnswer(b *testing.B) {
	g := newGuard()
	ctx := context.Background()
	for _, size := range []int{100, 64 << 10} {
		text := strings.Repeat("a", size)
		name := "small"
		if size > 1000 {
			name = "64KiB"
		}
		for _, kind := range []string{"plain", "read"} {
			body := text
			if kind == "read" {
				body = "isError " + text
			}
			msg := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + body + `"}]}}`)
			m, err := rpc.Parse(msg)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(name+"/"+kind, func(b *testing.B) {
				b.ReportAllocs()
				c := &call{id: []byte("7"), tool: "echo"} // a call the guard counted: as its transport keeps it
				c.settled.Store(true)
				for b.Loop() {
					if out := g.answer(ctx, c, msg, &m); !same(out, msg) {
						b.Fatal("rewritten")
					}
				}
			})
		}
	}
}
