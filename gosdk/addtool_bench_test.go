package gosdk_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
)

// orderArgs is a realistic tool's arguments: nested, with enums, bounds
// and a list. go-sdk's inference gives it a schema with types only;
// gosdk.AddTool's states the tags too, so each side checks what it
// advertises.
type orderArgs struct {
	CustomerID string      `json:"customer_id" jsonschema:"the customer placing the order" validate:"required,min=3,max=40"`
	Currency   string      `json:"currency" validate:"oneof=EUR USD GBP"`
	Express    bool        `json:"express,omitempty"`
	Note       string      `json:"note,omitempty" validate:"omitempty,max=500"`
	Lines      []orderLine `json:"lines" validate:"required,min=1,max=50,dive"`
}

type orderLine struct {
	SKU      string `json:"sku" validate:"required,min=3,max=32"`
	Quantity int    `json:"quantity" validate:"min=1,max=1000"`
}

type orderResult struct {
	OrderID string `json:"order_id"`
	Lines   int    `json:"lines"`
	Total   int    `json:"total_cents"`
}

func placeOrder(_ context.Context, _ *mcp.CallToolRequest, in orderArgs) (*mcp.CallToolResult, orderResult, error) {
	return nil, orderResult{OrderID: "ord-1", Lines: len(in.Lines), Total: 1299 * len(in.Lines)}, nil
}

var orderCall = json.RawMessage(`{"customer_id":"cus-4242","currency":"EUR","express":true,"note":"leave at the door",` +
	`"lines":[{"sku":"SKU-100","quantity":2},{"sku":"SKU-200","quantity":1},{"sku":"SKU-300","quantity":5}]}`)

// BenchmarkAddTool compares a successful tools/call through go-sdk's
// in-memory transport, client to server and back, for the same struct
// and handler: gosdk.AddTool against go-sdk's own mcp.AddTool (with its
// schema validation). Compare with benchstat.
func BenchmarkAddTool(b *testing.B) {
	for _, bc := range []struct {
		name string
		add  func(*mcp.Server)
	}{
		{"gosdk", func(s *mcp.Server) { gosdk.AddTool(s, &mcp.Tool{Name: "order"}, placeOrder) }},
		{"go-sdk", func(s *mcp.Server) { mcp.AddTool(s, &mcp.Tool{Name: "order"}, placeOrder) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := newPlainServer()
			bc.add(s)
			cs := connect(b, s)
			ctx := context.Background()
			params := &mcp.CallToolParams{Name: "order", Arguments: orderCall}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}
