package gosdk_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
)

type trackOut struct {
	OrderID string `json:"order_id"`
	Status  string `json:"status"`
}

// Install adds the chain in one call, outermost, with the hints inside it;
// OnSuccessOf gets the tool's output decoded, where structuredContent is
// JSON.
func ExampleInstall() {
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "v1.0.0"}, nil)
	gosdk.Install(s, gosdk.WithHints(gosdk.For("shop_track",
		gosdk.OnSuccessOf(func(_ context.Context, _ *mcp.CallToolRequest, out trackOut) []gosdk.Step {
			if out.Status != "delivered" {
				return []gosdk.Step{gosdk.Call("shop_track", "with order_id=%s again tomorrow", out.OrderID)}
			}
			return nil
		}),
	)))
	gosdk.AddTool(s, &mcp.Tool{Name: "shop_track"},
		func(_ context.Context, _ *mcp.CallToolRequest, in orderIn) (*mcp.CallToolResult, trackOut, error) {
			return nil, trackOut{OrderID: in.ID, Status: "in transit"}, nil
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
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shop_track", Arguments: map[string]any{"id": "o-42"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Meta[gosdk.NextStepsMetaKey])
	// Output:
	// [Call shop_track with order_id=o-42 again tomorrow.]
}
