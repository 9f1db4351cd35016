package validate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/validate"
)

// searchFilesArgs is the filesystem tool: pattern is required.
type searchFilesArgs struct {
	Path    string `json:"path" validate:"required"`
	Pattern string `json:"pattern" validate:"required"`
}

// drifted declares path only: the schema the tool had before pattern was
// added to the struct.
var drifted = mcp.NewTool("search_files", mcp.WithString("path", mcp.Required()))

func TestCheckToolComparesTheDeclaredSchemaWithT(t *testing.T) {
	t.Parallel()
	err := validate.CheckTool[searchFilesArgs](drifted)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `tool "search_files"`)
	assert.Contains(t, err.Error(), "pattern is required by the type but not declared")
	assert.NoError(t, validate.CheckTool[searchFilesArgs](mcp.NewTool("search_files", validate.InputSchema[searchFilesArgs]())))
	raw := mcp.NewToolWithRawSchema("search_files", "", []byte(`{"type":"object","properties":{"path":{"type":"string"},"pattern":{"type":"string"},"recursive":{"type":"boolean"}},"required":["path","pattern"]}`))
	err = validate.CheckTool[searchFilesArgs](raw)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "recursive is declared but the type has no such member")
}

// Without CheckTool, validate.Args finds the disagreement at each tool's
// first call, per tool, and logs it once as a warning; a global s.Use of
// Args over tools of another shape shows too. A tool that agrees logs
// nothing.
func TestArgsWarnsOnceWhenTheDeclaredSchemaDisagrees(t *testing.T) {
	t.Parallel()
	log := middlewaretest.NewLog(t)
	s := server.NewMCPServer("fs", "1.0.0")
	s.Use(middleware.Default(middleware.WithLogger(log.Logger()))...)
	s.Use(validate.Args[searchFilesArgs](validate.WithLogger(log.Logger())))
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	s.AddTool(drifted, ok)
	s.AddTool(mcp.NewTool("search_files_v2", validate.InputSchema[searchFilesArgs]()), ok)
	srv := middlewaretest.FromServer(t, s)
	for range 3 {
		srv.CallTool("search_files", map[string]any{"path": "/tmp"}).ExpectError(envelope.ValidationError)
		srv.CallTool("search_files_v2", map[string]any{"path": "/tmp", "pattern": "*.go"}).ExpectSuccess()
	}
	var warned []map[string]any
	for _, r := range log.Records() {
		if strings.Contains(r["msg"].(string), "declared input schema disagrees") {
			warned = append(warned, r)
		}
	}
	require.Len(t, warned, 1, "one warning, for the drifted tool, once")
	assert.Equal(t, "WARN", warned[0]["level"])
	assert.Equal(t, "search_files", warned[0]["tool"])
	assert.Contains(t, warned[0]["error"], "pattern is required by the type but not declared")
}
