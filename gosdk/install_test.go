package gosdk_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// Install puts the chain outermost with the hints inside it: error and
// success hints reach the agent, a panicking hint function cannot end the
// process, and hint texts go through the Middleware's redactor.
func TestInstallPutsTheHintsInsideTheChain(t *testing.T) {
	t.Parallel()
	red := redact.Default().With(redact.Rule{Name: "order", Pattern: regexp.MustCompile(`ORD-\d+`), Replacement: "[order]"})
	rule := gosdk.For("shop_order",
		gosdk.OnError(gosdk.NotFound, gosdk.Call("shop_search", "to find the order's ID")),
		gosdk.OnSuccessOf(func(_ context.Context, _ *mcp.CallToolRequest, out orderOut) []gosdk.Step {
			if out.Status == "shipped boom" {
				panic("hint function panicked")
			}
			return []gosdk.Step{gosdk.Call("shop_track", "to follow ORD-12345")}
		}),
	)
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "v0.0.0"}, nil)
	gosdk.Install(s, gosdk.WithRedactor(red), gosdk.WithLogger(gosdktest.NewLog(t).Logger()), gosdk.WithHints(rule))
	gosdk.AddTool(s, &mcp.Tool{Name: "shop_order"}, func(ctx context.Context, req *mcp.CallToolRequest, in orderIn) (*mcp.CallToolResult, orderOut, error) {
		if in.ID == "" {
			return nil, orderOut{}, gosdk.New(gosdk.NotFound, "no such order")
		}
		return shipped(ctx, req, in)
	})
	for _, name := range []string{"shop_search", "shop_track"} {
		mcp.AddTool(s, &mcp.Tool{Name: name}, shipped)
	}
	c := gosdktest.Connect(t, s)
	c.Call("shop_order", map[string]any{"id": ""}).ExpectError(gosdk.NotFound).ExpectNextStep("Call shop_search to find the order's ID.")
	r := c.Call("shop_order", map[string]any{"id": "o-1"}).ExpectSuccess().ExpectNextStep("Call shop_track to follow [order].")
	if strings.Contains(string(r.Raw), "ORD-12345") {
		t.Fatalf("the hint text skipped the Middleware's redactor: %s", r.Raw)
	}
	if r := c.Call("shop_order", map[string]any{"id": "boom"}).ExpectSuccess(); strings.Contains(r.Text(), "Next steps") {
		t.Fatalf("a panicking hint function added steps: %s", r.Raw)
	}
}

func TestWithHintsAndWithHintRegistryTogetherPanic(t *testing.T) {
	t.Parallel()
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "both WithHints and WithHintRegistry") {
			t.Fatalf("recover() = %v", p)
		}
	}()
	rule := gosdk.For("shop_order", gosdk.OnSuccess(gosdk.Text("x")))
	gosdk.Middleware(gosdk.WithHints(rule), gosdk.WithHintRegistry(gosdk.NewHintRegistry([]gosdk.Rule{rule})))
}
