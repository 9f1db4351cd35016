package middleware_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	mcprecover "github.com/mcpguard/mcpguard/recover"
	"github.com/mcpguard/mcpguard/redact"
)

// Each option of Default reaches the layer it configures, on the wire.
func TestDefaultOptionsReachTheirLayers(t *testing.T) {
	t.Parallel()
	tool := mcp.NewTool("shop_tool")
	answer := func(res *mcp.CallToolResult, err error) func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, err }
	}

	t.Run("WithRecoverOptions", func(t *testing.T) {
		t.Parallel()
		var seen atomic.Value
		logs := middlewaretest.NewLog(t)
		panicky := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("boom") }
		srv := middlewaretest.New(t, tool, panicky, middleware.Default(middleware.WithLogger(logs.Logger()),
			middleware.WithRecoverOptions(mcprecover.WithOnPanic(func(_ context.Context, _ mcp.CallToolRequest, p mcprecover.Panic) {
				seen.Store(p.IncidentID)
			})))...)
		env := expect(t, srv.Call(nil), envelope.InternalError)
		assert.Equal(t, env.IncidentID, seen.Load())
	})

	t.Run("WithRedactor", func(t *testing.T) {
		t.Parallel()
		emp := redact.Default().With(redact.NewRule("employee-id", `\bEMP-\d{6}\b`, "EMP-[REDACTED]", "emp-"))
		h := answer(nil, envelope.New(envelope.NotFound, "employee EMP-123456 not found"))
		middlewaretest.New(t, tool, h, middleware.Default(middleware.WithRedactor(emp))...).Call(nil).
			ExpectError(envelope.NotFound).ExpectMessage("employee EMP-[REDACTED] not found")
		middlewaretest.New(t, tool, h, middleware.Default()...).Call(nil).
			ExpectError(envelope.NotFound).ExpectMessage("employee EMP-123456 not found")
	})

	t.Run("WithRedactOptions", func(t *testing.T) {
		t.Parallel()
		h := answer(mcp.NewToolResultText("connected to postgres://app:hunter2@db/shop"), nil)
		plain := middlewaretest.New(t, tool, h, middleware.Default()...).Call(nil).ExpectSuccess()
		assert.Contains(t, string(plain.Raw), "hunter2", "successes are not redacted unless asked")
		middlewaretest.New(t, tool, h, middleware.Default(middleware.WithRedactOptions(redact.WithRedactSuccesses()))...).Call(nil).
			ExpectSuccess().NoLeak("hunter2")
	})
}

// searchFilesText is what a filesystem server's search answers: paths, a
// file URL and a compiler's position, which the tool exists to return,
// and what no success may carry: a password, a token, a DSN's password
// and a stack trace.
const searchFilesText = "/srv/files/a.txt\n/srv/files/sub/b.txt\nC:\\data\\c.txt\nroot: file:///srv/files\n" +
	"main.go:12:3: x declared and not used\n" +
	"config: password=hunter2 token ghp_abcdefghijklmnopqrstuvwxyz0123456789 dsn postgres://app:s3cr3t@db/shop\n" +
	"goroutine 1 [running]:\nmain.main()\n\t/app/main.go:12 +0x1d\n"

// Redacting successes removes secrets and stack traces, and keeps the
// paths a file tool exists to return (issue 48: every one became [path]).
func TestRedactSuccessesKeepsPaths(t *testing.T) {
	t.Parallel()
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(searchFilesText),
			mcp.NewResourceLink("file:///srv/files/sub/b.txt", "b.txt", "", "")}}, nil
	}
	r := middlewaretest.New(t, mcp.NewTool("search_files"), h,
		middleware.Default(middleware.WithRedactOptions(redact.WithRedactSuccesses()))...).Call(nil).ExpectSuccess()
	for _, kept := range []string{"/srv/files/a.txt\n/srv/files/sub/b.txt\nC:\\data\\c.txt\nroot: file:///srv/files\n", "main.go:12:3: x declared"} {
		assert.Contains(t, r.Text(), kept)
	}
	assert.Contains(t, string(r.Raw), `"uri":"file:///srv/files/sub/b.txt"`)
	for _, gone := range []string{"hunter2", "ghp_abcdef", "s3cr3t", "main.main()", "+0x1d"} {
		assert.NotContains(t, string(r.Raw), gone)
	}
}

// Default is one mcp-go layer (two with WithLogger) until a layer of the
// user's sits among its stages: the stages of admission core writes
// (pins, seal, hints, declared) run in its core/chain, and only those
// behind a layer given WithLimits run as layers of their own, so that
// mcp-go builds one closure a call, not one a stage.
func TestDefaultIsOneLayerUntilALayerOfYours(t *testing.T) {
	t.Parallel()
	logger := middlewaretest.NewLog(t).Logger()
	assert.Len(t, middleware.Default(), 1, "recover, repeats, redact, envelope, seal and declared")
	assert.Len(t, middleware.Default(middleware.WithLogger(logger)), 2, "Logging, then the chain")
	assert.Len(t, middleware.Default(middleware.WithLimits(limit.Rate(10, 10))), 3, "the chain, the limit, declared")
	assert.Len(t, middleware.Default(middleware.WithLimits(limit.Rate(10, 10)), middleware.WithoutDeclaredSchemas()), 2)
	rule := hints.For("shop_tool", hints.OnError(envelope.NotFound, hints.Text("Look.")))
	assert.Len(t, middleware.Default(middleware.WithHints(rule), middleware.WithoutStateSealing()), 1, "the chain, with hints")
	assert.Len(t, middleware.Default(middleware.WithHintRegistry(hints.New(nil))), 1, "a registry without rules")
	assert.Len(t, middleware.Default(middleware.WithHints(rule), middleware.WithLimits(limit.Rate(10, 10))), 3,
		"the chain with hints, the limit, declared")
}

// WithoutDeclaredSchemas with names turns the declared check off for
// those tools only, in Default's one layer.
func TestWithoutDeclaredSchemasForSomeTools(t *testing.T) {
	t.Parallel()
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("read"), nil
	}
	s := server.NewMCPServer("declared", "1.0.0", server.WithToolCapabilities(false))
	s.Use(middleware.Default(middleware.WithoutDeclaredSchemas("fs_stat"))...)
	for _, name := range []string{"fs_read", "fs_stat"} {
		s.AddTool(mcp.NewTool(name, mcp.WithString("path", mcp.Required())), ok)
	}
	srv := middlewaretest.FromServer(t, s)
	srv.CallTool("fs_read", map[string]any{"path": 7}).ExpectError(envelope.ValidationError)
	srv.CallTool("fs_stat", map[string]any{"path": 7}).ExpectSuccess()
}
