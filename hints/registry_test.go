package hints_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/redact"
)

// Parts of the hints API no other test called, each checked on the wire
// where it shows there.

func TestRegistryRulesAreACopy(t *testing.T) {
	t.Parallel()
	rules := []hints.Rule{hints.For("shop_a", hints.OnSuccess(hints.Text("Next."))), hints.For("shop_b")}
	reg := hints.New(rules)
	got := reg.Rules()
	assert.Equal(t, []string{"shop_a", "shop_b"}, []string{got[0].Tool(), got[1].Tool()})
	got[0] = hints.For("other")
	assert.Equal(t, "shop_a", reg.Rules()[0].Tool(), "changing the copy leaves the registry as it was")
}

func TestNoRulesPassThrough(t *testing.T) {
	t.Parallel()
	want := mcp.NewToolResultText("ok")
	h := hints.New(nil).Middleware()(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return want, nil })
	got, err := h(context.Background(), mcp.CallToolRequest{})
	assert.NoError(t, err)
	assert.Same(t, want, got)
}

func TestWithRedactorReachesHintTexts(t *testing.T) {
	t.Parallel()
	emp := redact.Default().With(redact.NewRule("employee-id", `\bEMP-\d{6}\b`, "EMP-[REDACTED]", "emp-"))
	rule := hints.For("shop_a", hints.OnSuccess(hints.Text("Ask EMP-123456 for access.")))
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("done"), nil
	}
	r := middlewaretest.New(t, mcp.NewTool("shop_a"), ok, hints.New([]hints.Rule{rule}, hints.WithRedactor(emp)).Middleware()).Call(nil).
		ExpectSuccess().ExpectNextStep("Ask EMP-[REDACTED] for access.")
	assert.NotContains(t, string(r.Raw), "EMP-123456")
}

// A hint merged into a hand-built error result keeps the result's other
// content items after the envelope's text.
func TestMergedErrorKeepsOtherContent(t *testing.T) {
	t.Parallel()
	img := mcp.ImageContent{Type: "image", Data: "iVBORw0KGgo=", MIMEType: "image/png"}
	legacy := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Type: "text", Text: "printer jammed"}, img}}, nil
	}
	rule := hints.For("shop_a", hints.OnError(envelope.ExecutionFailed, hints.Text("Clear the jam, then retry.")))
	r := middlewaretest.New(t, mcp.NewTool("shop_a"), legacy, hints.Middleware(rule)).Call(nil).
		ExpectError(envelope.ExecutionFailed).ExpectMessage("printer jammed").ExpectNextStep("Clear the jam")
	assert.Len(t, r.CallResult.Content, 2)
	assert.True(t, slices.ContainsFunc(r.CallResult.Content, func(c mcp.Content) bool { _, ok := mcp.AsImageContent(c); return ok }), "%s", r.Raw)

	// With ReplaceDefaults inside the chain, the code's default goes.
	replace := hints.For("shop_a", hints.ReplaceDefaults(), hints.OnError(envelope.ExecutionFailed, hints.Text("Clear the jam, then retry.")))
	r = middlewaretest.New(t, mcp.NewTool("shop_a"), legacy, append(middleware.Default(), hints.Middleware(replace))...).Call(nil).
		ExpectError(envelope.ExecutionFailed)
	assert.Equal(t, []string{"Clear the jam, then retry."}, r.Envelope.NextSteps)
}
