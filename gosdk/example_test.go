package gosdk_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

func ExampleMiddleware() {
	server := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1.0.0"}, nil)
	server.AddReceivingMiddleware(gosdk.Middleware())
	mcp.AddTool(server, &mcp.Tool{Name: "shop_get", Description: "Get a product by ID."},
		func(_ context.Context, _ *mcp.CallToolRequest, in getArgs) (*mcp.CallToolResult, product, error) {
			if in.ID != "p-1" {
				return nil, product{}, fmt.Errorf("product %q: %w", in.ID, gosdk.ErrNotFound)
			}
			return nil, product{ID: "p-1", Name: "Lamp"}, nil
		})

	// In a real test this is the *testing.T of your test function.
	t := &testing.T{}
	s := gosdktest.Connect(t, server)
	r := s.Call("shop_get", map[string]any{"id": "p-9"}).ExpectError(gosdk.NotFound).NoLeak()
	fmt.Println(r.Text())
	fmt.Println(s.Call("shop_get", map[string]any{"id": "p-1"}).ExpectSuccess().Text())
	fmt.Println("failed:", t.Failed())
	// Output:
	// {"success":false,"error_type":"not_found","tool":"shop_get","message":"product \"p-9\": not found","next_steps":["Verify the identifier with the tool that lists or searches these resources, then retry with an identifier it returned."],"retryable":false}
	// {"id":"p-1","name":"Lamp"}
	// failed: false
}
