package proxy

import (
	"context"
	"testing"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
)

// BenchmarkMessagePath measures, in this process and without pipes, what
// the stdio proxy does to a tool call and to its answer, step by step:
// where the proxy's own time per call goes (docs/proxy.md, "Latency end
// to end").
func BenchmarkMessagePath(b *testing.B) {
	req := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"message":"latency stdio proxy 1234"},"_meta":{"progressToken":7}}}`)
	ans := []byte(`{"result":{"content":[{"type":"text","text":"Echo: latency stdio proxy 1234"}]},"jsonrpc":"2.0","id":"mcpguard-abcdefghij-12"}`)
	g := newGuard()
	g.learn(&g.tools, 0, []byte(`{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}]}`))
	ctx := context.Background()
	m, _ := rpc.ReadClient(req)
	c := g.callOf(&m, nil)
	am, _ := rpc.Parse(ans)
	b.Run("readClient", func(b *testing.B) {
		for b.Loop() {
			_, _ = rpc.ReadClient(req)
		}
	})
	b.Run("newCall", func(b *testing.B) {
		for b.Loop() {
			_ = g.callOf(&m, nil)
		}
	})
	b.Run("admit", func(b *testing.B) {
		for b.Loop() {
			_ = g.admit(ctx, c, "stdio")
		}
	})
	b.Run("ownCall", func(b *testing.B) {
		for b.Loop() {
			_ = upstreamCall([]byte(`"mcpguard-abcdefghij-12"`), c, &m)
		}
	})
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			_, _ = rpc.Parse(ans)
		}
	})
	b.Run("answer", func(b *testing.B) {
		for b.Loop() {
			_ = g.answer(ctx, c, ans, &am)
		}
	})
	b.Run("withID", func(b *testing.B) {
		for b.Loop() {
			_ = rpc.WithID(ans, &am, m.ID)
		}
	})
}
