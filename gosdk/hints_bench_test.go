package gosdk_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
)

// BenchmarkHints measures, in one run, a typed tool's call through go-sdk's
// in-memory transport: bare; under a hints layer with rules for other
// tools (the pass-through); under a rule with a static success hint.
//
//	go test -run '^$' -bench Hints -count 10 ./gosdk/ | benchstat -
func BenchmarkHints(b *testing.B) {
	add := func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "shop_order"},
			func(context.Context, *mcp.CallToolRequest, orderIn) (*mcp.CallToolResult, orderOut, error) {
				return nil, orderOut{Status: "shipped"}, nil
			})
	}
	others := gosdk.Hints(gosdk.For("shop_cancel", gosdk.OnSuccess(gosdk.Text("x"))), gosdk.For("shop_search", gosdk.OnError(gosdk.NotFound, gosdk.Text("y"))))
	for _, c := range []struct {
		name   string
		layers []mcp.Middleware
	}{
		{"bare", nil},
		{"no-rule", []mcp.Middleware{others}},
		{"success-rule", []mcp.Middleware{gosdk.Hints(orderRule)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			cs := connect(b, newServer(add, c.layers...))
			params := &mcp.CallToolParams{Name: "shop_order", Arguments: map[string]any{"id": "42"}}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cs.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
