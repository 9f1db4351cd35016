package e2e_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

const (
	handlerStep = "Tell the user the order number."
	hintStep    = "Ask the user whether to track the delivery."
)

// TestBothFrontsMergeSuccessStepsAlike serves the same successful tool,
// whose handler puts a step of its own and another _meta member in its
// result, with the same success hint on a real mcp-go server and a real
// go-sdk server, and checks that both clients receive the same content
// texts and the same _meta: the hint's step first, the handler's after,
// its other member kept.
func TestBothFrontsMergeSuccessStepsAlike(t *testing.T) {
	t.Parallel()
	meta := func() map[string]any {
		return map[string]any{"trace": "t-1", hints.MetaKey: []any{handlerStep, hintStep}}
	}
	mg := middlewaretest.New(t, mcpgo.NewTool("shop_order"),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			res := mcpgo.NewToolResultText(`{"order":"O-1"}`)
			res.Meta = &mcpgo.Meta{AdditionalFields: meta()}
			return res, nil
		},
		append(middleware.Default(), hints.Middleware(hints.For("shop_order", hints.OnSuccess(hints.Text(hintStep)))))...)

	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1.0.0"}, nil)
	gosdk.Install(s, gosdk.WithHints(gosdk.For("shop_order", gosdk.OnSuccess(gosdk.Text(hintStep)))))
	s.AddTool(&mcp.Tool{Name: "shop_order", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"order":"O-1"}`}}, Meta: meta()}, nil
		})
	gs := gosdktest.Connect(t, s)

	mgRes := mg.Call(map[string]any{}).ExpectSuccess()
	gsRes := gs.Call("shop_order", map[string]any{}).ExpectSuccess()

	var mgTexts, gsTexts []string
	for _, c := range mgRes.CallResult.Content {
		if tc, ok := c.(mcpgo.TextContent); ok {
			mgTexts = append(mgTexts, tc.Text)
		}
	}
	for _, c := range gsRes.CallResult.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			gsTexts = append(gsTexts, tc.Text)
		}
	}
	wantTexts := []string{`{"order":"O-1"}`, "Next steps:\n- " + hintStep}
	if !reflect.DeepEqual(mgTexts, wantTexts) || !reflect.DeepEqual(gsTexts, wantTexts) {
		t.Errorf("content texts:\nmcp-go: %q\ngo-sdk: %q\nwant:   %q", mgTexts, gsTexts, wantTexts)
	}
	var mgMeta map[string]any
	if mgRes.CallResult.Meta != nil {
		mgMeta = mgRes.CallResult.Meta.AdditionalFields
	}
	gsMeta := map[string]any{}
	for k, v := range gsRes.CallResult.Meta {
		if !strings.HasPrefix(k, "io.modelcontextprotocol/") { // go-sdk's own (serverInfo)
			gsMeta[k] = v
		}
	}
	wantMeta := map[string]any{"trace": "t-1", hints.MetaKey: []any{hintStep, handlerStep}}
	if !reflect.DeepEqual(mgMeta, wantMeta) || !reflect.DeepEqual(gsMeta, wantMeta) {
		t.Errorf("_meta:\nmcp-go: %v\ngo-sdk: %v\nwant:   %v", mgMeta, gsMeta, wantMeta)
	}
}
