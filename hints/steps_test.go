package hints_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

var toolA = mcp.NewTool("shop_a")

func succeed(res *mcp.CallToolResult) func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil }
}

// A step is cut to 2000 bytes, its ellipsis included: one of exactly
// 2000 is kept whole, a far longer one is cut.
func TestStepLengthBound(t *testing.T) {
	t.Parallel()
	exact, long := strings.Repeat("a", 2000), strings.Repeat("b", 10_000)
	rule := hints.For("shop_a", hints.OnSuccess(hints.Text(exact), hints.Text(long)))
	r := middlewaretest.New(t, toolA, succeed(mcp.NewToolResultText("ok")), hints.Middleware(rule)).Call(nil).ExpectSuccess()
	steps, _ := r.CallResult.Meta.AdditionalFields[hints.MetaKey].([]any)
	assert.Equal(t, []any{exact, strings.Repeat("b", 2000-len("…")) + "…"}, steps)
}

func TestCallWithoutArgumentsKeepsPercentSigns(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "Call shop_export with 100% of the rows.", hints.Call("shop_export", "with 100% of the rows").String())
}

// A success result with no content gets the hint text as its only item.
func TestSuccessWithoutContent(t *testing.T) {
	t.Parallel()
	rule := hints.For("shop_a", hints.OnSuccess(hints.Text("Next.")))
	r := middlewaretest.New(t, toolA, succeed(&mcp.CallToolResult{}), hints.Middleware(rule)).Call(nil).ExpectSuccess()
	assert.Equal(t, "Next steps:\n- Next.", r.Text())
}
