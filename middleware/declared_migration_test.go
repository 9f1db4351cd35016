package middleware_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// TestMigrationDeclaredSchemas holds the migration table's rows on
// declared schemas: the one line enforces the schema each tool declares
// (mcp.WithString("title")), and a lossless "5" for a declared number
// still reaches the handler as 5.
func TestMigrationDeclaredSchemas(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	before := middlewaretest.FromServer(t, trackerServer(dir, nil))
	r := before.CallTool("tracker_create", map[string]any{"title": 42})
	assert.True(t, r.IsError())
	assert.Nil(t, r.Envelope, "plain mcp-go: the handler acted on \"\" and answered in text: %s", r.Raw)
	assert.Equal(t, "title is required", r.Text())
	before.CallTool("tracker_list", map[string]any{"limit": "5"}).ExpectSuccess()

	after := middlewaretest.FromServer(t, trackerServer(dir, nil, middleware.Default()...))
	after.CallTool("tracker_create", map[string]any{"title": 42}).ExpectError(envelope.ValidationError).
		ExpectField("title", "type").ExpectMessage("title must be a string, not a number")
	after.CallTool("tracker_list", map[string]any{"limit": "5"}).ExpectSuccess()
	after.CallTool("tracker_list", map[string]any{"limit": "five"}).ExpectError(envelope.ValidationError).ExpectField("limit", "type")
}
