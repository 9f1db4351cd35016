package gosdk_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// typedOrder registers shop_order with a typed handler whose Out is
// orderOut, through go-sdk's own mcp.AddTool or gosdk.AddTool.
var typedOrder = map[string]func(s *mcp.Server){
	"mcp.AddTool": func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "shop_order"}, shipped)
	},
	"gosdk.AddTool": func(s *mcp.Server) {
		gosdk.AddTool(s, &mcp.Tool{Name: "shop_order"}, shipped)
	},
}

func shipped(_ context.Context, _ *mcp.CallToolRequest, in orderIn) (*mcp.CallToolResult, orderOut, error) {
	return nil, orderOut{Status: "shipped " + in.ID}, nil
}

// A typed success hint gets the tool's Out decoded, wherever the hints
// layer sits and whichever AddTool registered the tool: inside receiving
// middleware, structuredContent is already JSON.
func TestOnSuccessOfGetsTheDecodedOutput(t *testing.T) {
	t.Parallel()
	rule := gosdk.For("shop_order", gosdk.OnSuccessOf(func(_ context.Context, _ *mcp.CallToolRequest, out orderOut) []gosdk.Step {
		if !strings.HasPrefix(out.Status, "shipped") {
			return nil
		}
		return []gosdk.Step{gosdk.Call("shop_track", "to follow order %s", strings.TrimPrefix(out.Status, "shipped "))}
	}))
	for reg, add := range typedOrder {
		for order, layers := range orders {
			t.Run(reg+"/"+order, func(t *testing.T) {
				t.Parallel()
				s := newServer(add, layers(gosdk.Hints(rule))...)
				gosdktest.Connect(t, s).Call("shop_order", map[string]any{"id": "o-7"}).
					ExpectSuccess().
					ExpectNextStep("Call shop_track to follow order o-7.")
			})
		}
	}
}

// An OnSuccessFunc that type-asserts the Go value of structuredContent, as
// one written for mcp-go would, never matches on go-sdk: the server says
// so, once, at debug level, naming the tool and OnSuccessOf.
func TestAnOnSuccessFuncThatCannotMatchIsLoggedOnce(t *testing.T) {
	t.Parallel()
	log := gosdktest.NewLog(t)
	asserting := gosdk.OnSuccessFunc(func(_ context.Context, _ *mcp.CallToolRequest, res *mcp.CallToolResult) []gosdk.Step {
		if out, ok := res.StructuredContent.(orderOut); ok {
			return []gosdk.Step{gosdk.Text("Order " + out.Status + ".")}
		}
		return nil
	})
	reg := gosdk.NewHintRegistry([]gosdk.Rule{gosdk.For("shop_order", asserting)}, gosdk.WithHintLogger(log.Logger()))
	s := newServer(typedOrder["mcp.AddTool"], gosdk.Middleware(), reg.Middleware())
	c := gosdktest.Connect(t, s)
	for range 3 {
		if r := c.Call("shop_order", map[string]any{"id": "o-7"}).ExpectSuccess(); strings.Contains(r.Text(), "Next steps") {
			t.Fatalf("the assertion matched: %s", r.Raw)
		}
	}
	var found []map[string]any
	for _, rec := range log.Records() {
		if e, _ := rec["error"].(string); strings.Contains(e, "OnSuccessOf") {
			found = append(found, rec)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d records name OnSuccessOf, want 1: %v", len(found), log.Records())
	}
	if found[0]["level"] != "DEBUG" || found[0]["tool"] != "shop_order" {
		t.Fatalf("record = %v, want level DEBUG and tool shop_order", found[0])
	}
}
