package gosdk_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
)

type cancelIn struct {
	ID string `json:"id"`
}

type cancelOut struct {
	Status string `json:"status"`
}

// A success hint reaches the agent as a last text item and under
// NextStepsMetaKey in _meta; the structured content is untouched.
func ExampleHints() {
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "v1.0.0"}, nil)
	s.AddReceivingMiddleware(gosdk.Hints(
		gosdk.For("shop_cancel", gosdk.OnSuccess(gosdk.Call("shop_order", "to see the order's new status"))),
	))
	mcp.AddTool(s, &mcp.Tool{Name: "shop_cancel"},
		func(_ context.Context, _ *mcp.CallToolRequest, in cancelIn) (*mcp.CallToolResult, cancelOut, error) {
			return nil, cancelOut{Status: "cancelled"}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "shop_order"},
		func(_ context.Context, _ *mcp.CallToolRequest, in cancelIn) (*mcp.CallToolResult, cancelOut, error) {
			return nil, cancelOut{Status: "open"}, nil
		})

	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shop_cancel", Arguments: map[string]any{"id": "42"}})
	if err != nil {
		panic(err)
	}
	for _, c := range res.Content {
		fmt.Println(c.(*mcp.TextContent).Text)
	}
	fmt.Println(res.Meta[gosdk.NextStepsMetaKey])
	// Output:
	// {"status":"cancelled"}
	// Next steps:
	// - Call shop_order to see the order's new status.
	// [Call shop_order to see the order's new status.]
}

// CheckTools proves at startup, or in a test, that every tool a hint names
// exists.
func ExampleCheckTools() {
	tools := []*mcp.Tool{{Name: "shop_order"}, {Name: "shop_search"}}
	err := gosdk.CheckTools(tools,
		gosdk.For("shop_order",
			gosdk.OnError(gosdk.NotFound, gosdk.Call("shop_search", "to find the order's ID")),
			gosdk.OnErrorIs(gosdk.ErrAuthenticationFailed, gosdk.Call("shop_authenticate", "with your API key, then retry")),
		),
	)
	fmt.Println(err)
	// Output:
	// hints: hints of tool "shop_order" name unknown tool "shop_authenticate"
}
