package envelope_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/core/chain"
	"github.com/mcpguard/mcpguard/envelope"
)

// A layer built from core/chain's Render stage is the envelope layer:
// Middleware is exactly this.
func ExampleRenderer_Layer() {
	r := envelope.NewRenderer(envelope.WithMapping(errNoStock, envelope.NotFound))
	layer := r.Layer(chain.Render(r.Stage(), r.Core()))
	h := layer(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("sku 42: %w", errNoStock)
	})
	var req mcp.CallToolRequest
	req.Params.Name = "reserve"
	res, err := h(context.Background(), req)
	env, _ := envelope.FromResult(res)
	fmt.Println(err, res.IsError, env.ErrorType)
	// Output: <nil> true not_found
}

var errNoStock = errors.New("out of stock")
