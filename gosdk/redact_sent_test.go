package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// The go-sdk front keeps on the wire what the mcp-go front keeps: the
// schema pointer a validator names, the file the agent sent echoed as a
// file URL; and it redacts the server's own paths and a secret in a path.
func TestMiddlewareKeepsPointersAndSentFilesOnTheWire(t *testing.T) {
	t.Parallel()
	s := newGuardedServer()
	lowLevel(s, "files", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct{ Case, File string }
		_ = json.Unmarshal(req.Params.Arguments, &a)
		switch a.Case {
		case "pointer":
			return nil, gosdk.Wrap(gosdk.ValidationError, fmt.Errorf(`validating /properties/entities: type: 12345 has type "integer"`))
		case "url":
			if !strings.HasPrefix(a.File, "/") {
				a.File = "/srv/ws/" + a.File
			}
			return nil, fmt.Errorf("no package metadata for file file://%s: %w", a.File, fs.ErrNotExist)
		}
		return nil, fmt.Errorf("failed to write file /var/lib/app/db_password=hunter2/memory.json: %w", fs.ErrNotExist)
	})
	c := gosdktest.Connect(t, s)
	c.Call("files", map[string]any{"case": "pointer"}).ExpectError(gosdk.ValidationError).ExpectMessage("validating /properties/entities: type")
	c.Call("files", map[string]any{"case": "url", "file": "/tmp/x/nope.go"}).ExpectError(gosdk.NotFound).
		ExpectMessage("no package metadata for file file:///tmp/x/nope.go")
	r := c.Call("files", map[string]any{"case": "url", "file": "nope.go"}).ExpectMessage("no package metadata for file [path]")
	assert.NotContains(t, r.Text(), "/srv/ws")
	c.Call("files", map[string]any{"case": "leak"}).ExpectError(gosdk.NotFound).ExpectMessage("failed to write file [path]").NoLeak("hunter2", "memory.json")
}

// KeepPathsUnder on the go-sdk chain: the relative name the agent sent,
// resolved under the server's root, comes back readable; the server's own
// files do not.
func TestKeepPathsUnderOnTheWire(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	serve := func(opts ...gosdk.Option) *gosdktest.Session {
		s := newGuardedServer(opts...)
		lowLevel(s, "stat", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Path string }
			_ = json.Unmarshal(req.Params.Arguments, &a)
			if _, err := os.Stat(filepath.Join(root, a.Path)); err != nil {
				return nil, err
			}
			_, err := os.ReadFile("/nonexistent-mcpguard/state/db_password=hunter2/memory.json")
			return nil, err
		})
		return gosdktest.Connect(t, s)
	}
	c := serve(gosdk.WithRedactor(redact.Default().KeepPathsUnder(root)))
	c.Call("stat", map[string]any{"path": "nope.txt"}).ExpectError(gosdk.NotFound).
		ExpectMessage("stat " + filepath.Join(root, "nope.txt") + ": no such file or directory")
	r := c.Call("stat", map[string]any{"path": "."}).ExpectError(gosdk.NotFound).ExpectMessage("open [path]: no such file")
	assert.NotContains(t, string(r.Raw), "hunter2")
	assert.NotContains(t, string(r.Raw), "nonexistent-mcpguard")

	serve().Call("stat", map[string]any{"path": "nope.txt"}).ExpectMessage("stat [path]: no such file").NoLeak()
}

// searchFilesText is what a filesystem server's search answers: paths, a
// file URL and a compiler's position, which the tool exists to return,
// and what no success may carry: a password, a token, a DSN's password
// and a stack trace.
const searchFilesText = "/srv/files/a.txt\n/srv/files/sub/b.txt\nC:\\data\\c.txt\nroot: file:///srv/files\n" +
	"main.go:12:3: x declared and not used\n" +
	"config: password=hunter2 token ghp_abcdefghijklmnopqrstuvwxyz0123456789 dsn postgres://app:s3cr3t@db/shop\n" +
	"goroutine 1 [running]:\nmain.main()\n\t/app/main.go:12 +0x1d\n"

// WithRedactSuccesses removes secrets and stack traces from a success,
// and keeps the paths a file tool exists to return (issue 48).
func TestRedactSuccessesKeepsPaths(t *testing.T) {
	t.Parallel()
	s := newGuardedServer(gosdk.WithRedactSuccesses())
	lowLevel(s, "search_files", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: searchFilesText},
			&mcp.ResourceLink{URI: "file:///srv/files/sub/b.txt", Name: "b.txt"}}}, nil
	})
	r := gosdktest.Connect(t, s).Call("search_files", map[string]any{}).ExpectSuccess()
	for _, kept := range []string{"/srv/files/a.txt\n/srv/files/sub/b.txt\nC:\\data\\c.txt\nroot: file:///srv/files\n", "main.go:12:3: x declared"} {
		assert.Contains(t, r.Text(), kept)
	}
	assert.Contains(t, string(r.Raw), `"uri":"file:///srv/files/sub/b.txt"`)
	for _, gone := range []string{"hunter2", "ghp_abcdef", "s3cr3t", "main.main()", "+0x1d"} {
		assert.NotContains(t, string(r.Raw), gone)
	}
}
