package e2e_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/redisstore"
	"github.com/mcpguard/mcpguard/redisstore/redistest"
)

// BenchmarkRateStoreToolsCall compares, in one run, an allowed tools/call
// through HandleMessage on bare mcp-go, behind limit.Rate with its
// in-process buckets, and behind limit.Rate with its buckets in Redis on
// loopback:
//
//	go test -run '^$' -bench RateStoreToolsCall -benchmem -count 6 ./e2e | benchstat -col /store -
func BenchmarkRateStoreToolsCall(b *testing.B) {
	srv := redistest.Start(b)
	store, err := redisstore.Open(srv.URL())
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_search","arguments":{}}}`)
	const allowAll = rate.Limit(1e9)
	for _, c := range []struct {
		name string
		mw   []server.ToolHandlerMiddleware
	}{
		{"bare", nil},
		{"memory", []server.ToolHandlerMiddleware{limit.Rate(allowAll, 1e9)}},
		{"redis", []server.ToolHandlerMiddleware{limit.Rate(allowAll, 1e9, limit.WithStore(store))}},
	} {
		b.Run("store="+c.name, func(b *testing.B) {
			s := server.NewMCPServer("bench", "1.0.0", server.WithToolCapabilities(false))
			for _, mw := range c.mw {
				s.Use(mw)
			}
			s.AddTool(mcp.NewTool("shop_search"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			})
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				_ = s.HandleMessage(ctx, msg)
			}
		})
	}
}
