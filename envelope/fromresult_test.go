package envelope_test

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
)

func TestFromResultReadsPointerContent(t *testing.T) {
	t.Parallel()
	text := `{"success":false,"error_type":"not_found","tool":"t","message":"m","next_steps":["s"],"retryable":false}`
	env, ok := envelope.FromResult(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Type: "text", Text: text}}})
	require.True(t, ok)
	assert.Equal(t, envelope.NotFound, env.ErrorType)
	_, ok = envelope.FromResult(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{(*mcp.TextContent)(nil)}})
	assert.False(t, ok)
}

func TestFromResultPrefersTheStructuredEnvelope(t *testing.T) {
	t.Parallel()
	env, ok := envelope.FromResult(&mcp.CallToolResult{IsError: true, StructuredContent: &envelope.Envelope{ErrorType: envelope.NotFound, Message: "m"}})
	require.True(t, ok, "no text is needed when the structured envelope is there")
	assert.Equal(t, envelope.NotFound, env.ErrorType)
}
