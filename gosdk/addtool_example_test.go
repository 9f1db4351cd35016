package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
)

type priceArgs struct {
	SKU      string `json:"sku" jsonschema:"the product's SKU" validate:"required,min=5"`
	Currency string `json:"currency,omitempty" validate:"omitempty,oneof=EUR USD"`
}

type priceResult struct {
	SKU   string `json:"sku"`
	Cents int    `json:"cents"`
}

func ExampleAddTool() {
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1"}, nil)
	gosdk.AddTool(s, &mcp.Tool{Name: "shop_price", Description: "Price of a product"},
		func(_ context.Context, _ *mcp.CallToolRequest, in priceArgs) (*mcp.CallToolResult, priceResult, error) {
			if in.SKU == "SKU-404" {
				return nil, priceResult{}, fmt.Errorf("%s is not in the catalogue: %w", in.SKU, gosdk.ErrNotFound)
			}
			return nil, priceResult{SKU: in.SKU, Cents: 1299}, nil
		})

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := s.Connect(ctx, st, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	defer cs.Close()

	list, _ := cs.ListTools(ctx, nil)
	schema, _ := json.Marshal(list.Tools[0].InputSchema)
	fmt.Println(string(schema))
	for _, args := range []string{`{"sku":"SKU-1"}`, `{"sku":"SKU-404"}`, `{"sku":"S1","currency":"eur"}`} {
		res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shop_price", Arguments: json.RawMessage(args)})
		fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// {"additionalProperties":false,"properties":{"currency":{"enum":["EUR","USD"],"type":"string"},"sku":{"description":"the product's SKU","minLength":5,"type":"string"}},"required":["sku"],"type":"object"}
	// false {"cents":1299,"sku":"SKU-1"}
	// true {"success":false,"error_type":"not_found","tool":"shop_price","message":"SKU-404 is not in the catalogue: not found","next_steps":["Verify the identifier with the tool that lists or searches these resources, then retry with an identifier it returned."],"retryable":false}
	// true {"success":false,"error_type":"validation_error","tool":"shop_price","message":"2 invalid arguments: sku must be at least 5 characters (got \"S1\"); currency must be one of: EUR, USD (got \"eur\"); did you mean \"EUR\"?.","next_steps":["Re-read this tool's inputSchema from tools/list and call it again with corrected arguments."],"retryable":false,"fields":[{"field":"sku","rule":"min","param":"5","message":"sku must be at least 5 characters (got \"S1\")"},{"field":"currency","rule":"oneof","allowed":["EUR","USD"],"suggestion":"EUR","message":"currency must be one of: EUR, USD (got \"eur\"); did you mean \"EUR\"?"}]}
}
