package gosdk_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// WithHintRedactor's rules reach every hint's text on the wire, on success
// and on error; with the default redactor the same text goes out as it is.
func TestWithHintRedactorReachesHintTexts(t *testing.T) {
	t.Parallel()
	emp := redact.Default().With(redact.NewRule("employee-id", `\bEMP-\d{6}\b`, "EMP-[REDACTED]", "emp-"))
	rule := gosdk.For("shop_a",
		gosdk.OnSuccess(gosdk.Text("Ask EMP-123456 for access.")),
		gosdk.OnError(gosdk.NotFound, gosdk.Text("Ask EMP-654321 to restore it.")))
	serve := func(opts ...gosdk.HintOption) *gosdktest.Session {
		s := newGuardedServer()
		s.AddReceivingMiddleware(gosdk.NewHintRegistry([]gosdk.Rule{rule}, opts...).Middleware())
		lowLevel(s, "shop_a", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if strings.Contains(string(req.Params.Arguments), "missing") {
				return nil, gosdk.ErrNotFound
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
		return gosdktest.Connect(t, s)
	}

	c := serve(gosdk.WithHintRedactor(emp))
	c.Call("shop_a", nil).ExpectSuccess().ExpectNextStep("Ask EMP-[REDACTED] for access.").NoLeak("EMP-123456")
	c.Call("shop_a", map[string]any{"id": "missing"}).ExpectError(gosdk.NotFound).
		ExpectNextStep("Ask EMP-[REDACTED] to restore it.").NoLeak("EMP-654321")

	plain := serve()
	plain.Call("shop_a", nil).ExpectSuccess().ExpectNextStep("Ask EMP-123456 for access.")
}
