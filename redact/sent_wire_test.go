package redact_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/redact"
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

// A file server keeps the paths under its roots readable through the
// chain's one redactor: the relative name the agent sent comes back in the
// form the server resolved it to, the server's own files stay redacted.
func TestKeepPathsUnderOnTheWire(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	h := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, err := os.Stat(filepath.Join(root, req.GetString("path", ""))); err != nil {
			return nil, err
		}
		_, err := os.ReadFile("/nonexistent-mcpguard/state/db_password=hunter2/memory.json")
		return nil, err
	}
	tool := mcp.NewTool("stat", mcp.WithString("path"))
	srv := middlewaretest.New(t, tool, h, middleware.Default(middleware.WithRedactor(redact.Default().KeepPathsUnder(root)))...)
	srv.Call(map[string]any{"path": "nope.txt"}).ExpectError(envelope.NotFound).
		ExpectMessage("stat " + filepath.Join(root, "nope.txt") + ": no such file or directory")
	r := srv.Call(map[string]any{"path": "."}).ExpectError(envelope.NotFound).ExpectMessage("open [path]: no such file")
	assert.NotContains(t, string(r.Raw), "hunter2")
	assert.NotContains(t, string(r.Raw), "nonexistent-mcpguard")

	plain := middlewaretest.New(t, tool, h, middleware.Default()...)
	plain.Call(map[string]any{"path": "nope.txt"}).ExpectMessage("stat [path]: no such file").NoLeak()
}
