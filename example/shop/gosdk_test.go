package shop_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/mcpguard/mcpguard/example/shop"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// The shop on go-sdk, driven by a real go-sdk client through gosdktest:
// the same failures get the same envelopes, fields and hints as on
// mcp-go, from the server constructor a program uses.
func TestGoSDKShop(t *testing.T) {
	t.Parallel()
	s := gosdktest.Connect(t, shop.NewGoSDKServer(open(t), shop.WithPanicTool(),
		shop.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))))
	s.ListTools() // the front learns which tools declare an output schema, as a client's list teaches it

	s.Call(shop.ToolGetProduct, map[string]any{"id": "p-9999"}).
		ExpectError(gosdk.NotFound).ExpectMessage("p-9999").ExpectNextStep("Call shop_search").NoLeak()
	s.Call(shop.ToolSearch, map[string]any{"category": "Electronics", "limit": 9999}).
		ExpectError(gosdk.ValidationError).ExpectField("category", "oneof").ExpectField("limit", "max")
	if f := s.Call(shop.ToolSearch, map[string]any{"category": "Electronics"}).Field("category"); f == nil || f.Suggestion != "electronics" {
		t.Errorf("category's field error: %+v, want the suggestion electronics", f)
	}
	s.Call(shop.ToolGetProduct, map[string]any{"id": "../../etc/passwd"}).
		ExpectError(gosdk.ValidationError).ExpectField("id", "pattern")
	s.Call(shop.ToolQuery, map[string]any{"sql": "SELECT * FROM users"}).
		ExpectError(gosdk.ExecutionFailed).ExpectMessage("no such table: users").ExpectNextStep("Call shop_get_schema")
	s.Call(shop.ToolQuery, map[string]any{"sql": "DELETE FROM products"}).
		ExpectError(gosdk.AccessDenied).ExpectNextStep("only reads")
	s.Call(shop.ToolSalesReport, map[string]any{"session_token": "sess_forged", "month": "2025-03"}).
		ExpectError(gosdk.AuthenticationFailed).ExpectNextStep("Call shop_authenticate")
	// The legacy tool declares its days as an enum: the Middleware enforces it.
	s.Call(shop.ToolStoreHours, map[string]any{"day": "someday"}).
		ExpectError(gosdk.ValidationError).ExpectField("day", "oneof")
	s.Call(shop.ToolDebugPanic, nil).
		ExpectError(gosdk.InternalError).ExpectNextStep("incident").NoLeak(shop.PanicSecret)
	if r := s.Call(shop.ToolGetProduct, map[string]any{"id": "p-9999"}); r.StructuredContent() != nil {
		t.Errorf("a tool with an output schema got structuredContent on error: %s", r.Raw)
	}

	ok := s.Call(shop.ToolGetProduct, map[string]any{"id": "p-1001"}).ExpectSuccess()
	if ok.StructuredContent() == nil {
		t.Errorf("shop_get_product sent no structuredContent: %s", ok.Raw)
	}
}
