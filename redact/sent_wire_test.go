package redact_test

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// On the wire, through the default chain: the argument a validator names
// (a schema pointer) and the file the agent sent, echoed as a file URL,
// stay readable; the server's own paths and a secret inside a path do not.
func TestDefaultChainKeepsPointersAndSentFilesOnTheWire(t *testing.T) {
	t.Parallel()
	h := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		switch req.GetString("case", "") {
		case "pointer":
			return nil, envelope.Wrap(envelope.ValidationError, fmt.Errorf(`validating /properties/entities: type: 12345 has type "integer"`))
		case "url":
			file := req.GetString("file", "")
			if !strings.HasPrefix(file, "/") {
				file = "/srv/ws/" + file // resolved under the server's own root
			}
			return nil, fmt.Errorf("no package metadata for file file://%s: %w", file, fs.ErrNotExist)
		default:
			return nil, fmt.Errorf("failed to write file /var/lib/app/db_password=hunter2/memory.json: %w", fs.ErrNotExist)
		}
	}
	srv := middlewaretest.New(t, mcp.NewTool("files", mcp.WithString("case"), mcp.WithString("file")), h, middleware.Default()...)
	srv.Call(map[string]any{"case": "pointer"}).ExpectError(envelope.ValidationError).ExpectMessage("validating /properties/entities: type")
	srv.Call(map[string]any{"case": "url", "file": "/tmp/x/nope.go"}).ExpectError(envelope.NotFound).
		ExpectMessage("no package metadata for file file:///tmp/x/nope.go").NoLeak()
	r := srv.Call(map[string]any{"case": "url", "file": "nope.go"})
	assert.NotContains(t, r.Text(), "/srv/ws", "a path the agent did not send verbatim stays redacted")
	r.ExpectMessage("no package metadata for file [path]")
	srv.Call(map[string]any{"case": "leak"}).ExpectError(envelope.NotFound).ExpectMessage("failed to write file [path]").NoLeak("hunter2", "memory.json")
}
