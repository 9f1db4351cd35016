package validate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/validate"
)

// Validation previews follow the chain's redaction: what the agent sent
// itself (a path) is no leak and stays readable; with the rule switched
// off through the one option, so is everything else.
func TestPreviewFollowsTheChainsRedaction(t *testing.T) {
	t.Parallel()
	type fileArgs struct {
		Path string `json:"path" validate:"required,max=5"`
	}
	h := validate.Handler(func(_ context.Context, _ mcp.CallToolRequest, a fileArgs) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(a.Path), nil
	})
	tool := mcp.NewTool("files_open", validate.InputSchema[fileArgs]())
	srv := middlewaretest.New(t, tool, h, middleware.Default()...)
	r := srv.Call(map[string]any{"path": "/srv/a.md"}).ExpectError(envelope.ValidationError)
	if f := r.Field("path"); f == nil || !strings.Contains(f.Message, "/srv/a.md") {
		t.Errorf("the path the agent sent is shown back: %+v", r.Envelope.Fields)
	}
	r = srv.Call(map[string]any{"path": "token=ghp_" + strings.Repeat("A1b2C3d4e5", 4)}).ExpectError(envelope.ValidationError)
	r.NoLeak("ghp_")
}
