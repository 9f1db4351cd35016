package hints_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// With normalization off, an error result reaches the hints layer as the
// handler built it. When its envelope text is a *mcp.TextContent (the
// pointer form mcp-go also accepts), the merged envelope replaces that
// text, once, and the result's other content stays after it.
func TestMergeReplacesAnEnvelopeHeldByPointer(t *testing.T) {
	t.Parallel()
	own := `{"success":false,"error_type":"not_found","tool":"shop_a","message":"no card 7","next_steps":["Check the card number."],"retryable":false}`
	img := mcp.ImageContent{Type: "image", Data: "iVBORw0KGgo=", MIMEType: "image/png"}
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Type: "text", Text: own}, img}}, nil
	}
	rule := hints.For("shop_a", hints.OnError(envelope.NotFound, hints.Text("Call shop_search first.")))
	chain := append(middleware.Default(middleware.WithEnvelopeOptions(envelope.WithoutNormalization())), hints.Middleware(rule))
	r := middlewaretest.New(t, toolA, h, chain...).Call(nil).
		ExpectError(envelope.NotFound).ExpectMessage("no card 7").ExpectNextStep("Call shop_search first.")
	assert.Len(t, r.CallResult.Content, 2, "the envelope's text, then the image: %s", r.Raw)
	_, isImage := mcp.AsImageContent(r.CallResult.Content[1])
	assert.True(t, isImage, "%s", r.Raw)
}
