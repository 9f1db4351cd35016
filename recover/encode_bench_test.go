package recover_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/middleware"
	mcprecover "github.com/mcpguard/mcpguard/recover"
)

type benchProduct struct {
	ID    string   `json:"id"`
	Name  string   `json:"name"`
	Price float64  `json:"price"`
	Tags  []string `json:"tags"`
}

// BenchmarkSuccessEncoded is a successful tools/call as a transport serves
// it: HandleMessage, then the response encoded as mcp-go's transports
// encode it (json.Marshal), bare and behind recover alone and the Default
// chain, for a text result and for a result with a typed structuredContent
// (which recover encodes itself, so that a panic in it is caught):
//
//	go test -run '^$' -bench SuccessEncoded -benchmem -count 6 ./recover
func BenchmarkSuccessEncoded(b *testing.B) {
	results := map[string]func() *mcp.CallToolResult{
		"text": func() *mcp.CallToolResult {
			return mcp.NewToolResultText(`{"id":"P-1001","name":"Mechanical keyboard","price":129.0}`)
		},
		"structured": func() *mcp.CallToolResult {
			p := benchProduct{ID: "P-1001", Name: "Mechanical keyboard", Price: 129.0, Tags: []string{"usb", "tkl"}}
			return mcp.NewToolResultStructured(p, `{"id":"P-1001","name":"Mechanical keyboard","price":129.0}`)
		},
	}
	chains := []struct {
		name string
		mws  []server.ToolHandlerMiddleware
	}{
		{"bare", nil},
		{"recover", []server.ToolHandlerMiddleware{mcprecover.Middleware()}},
		{"default", middleware.Default()},
	}
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_get_product","arguments":{"product_id":"P-1001"}}}`)
	for _, result := range []string{"text", "structured"} {
		for _, c := range chains {
			b.Run("result="+result+"/chain="+c.name, func(b *testing.B) {
				s := server.NewMCPServer("bench", "1.0.0", server.WithToolCapabilities(false))
				if len(c.mws) > 0 {
					s.Use(c.mws...)
				}
				build := results[result]
				s.AddTool(mcp.NewTool("shop_get_product", mcp.WithString("product_id", mcp.Required())),
					func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return build(), nil })
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if _, err := json.Marshal(s.HandleMessage(ctx, msg)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
