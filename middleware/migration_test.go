package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// errDialTimeout is what a database driver returns when the network gives
// up: a net.Error whose Timeout says so.
type errDialTimeout struct{}

func (errDialTimeout) Error() string   { return "dial tcp 10.0.0.5:5432: i/o timeout" }
func (errDialTimeout) Timeout() bool   { return true }
func (errDialTimeout) Temporary() bool { return true }

// trackerServer is the issue tracker of the README's migration section as
// a user has it before mcpguard: plain handlers, plain errors, and the
// options a careful mcp-go user sets. layers is the one line.
func trackerServer(dir string, opts []server.ServerOption, layers ...server.ToolHandlerMiddleware) *server.MCPServer {
	s := server.NewMCPServer("tracker", "1.0.0", append([]server.ServerOption{server.WithToolCapabilities(false)}, opts...)...)
	if len(layers) > 0 {
		s.Use(layers...)
	}
	s.AddTool(mcp.NewTool("tracker_read_attachment", mcp.WithString("path")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		p := req.GetString("path", "")
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read attachment: %w", err)
		}
		return mcp.NewToolResultText(string(b)), nil
	})
	s.AddTool(mcp.NewTool("tracker_save", mcp.WithString("title")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("save: %w", fs.ErrPermission)
	})
	s.AddTool(mcp.NewTool("tracker_list", mcp.WithNumber("limit")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		limit, err := req.RequireInt("limit")
		if err != nil {
			return nil, err
		}
		if limit < 1 || limit > 100 {
			return nil, fmt.Errorf("limit must be between 1 and 100, got %d", limit)
		}
		return mcp.NewToolResultText("[]"), nil
	})
	s.AddTool(mcp.NewTool("tracker_sync"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("sync with postgres://tracker:hunter2@10.0.0.5/issues: %w", errDialTimeout{})
	})
	s.AddTool(mcp.NewTool("tracker_create", mcp.WithString("title")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.GetString("title", "") == "" {
			return mcp.NewToolResultError("title is required"), nil
		}
		return mcp.NewToolResultText("created"), nil
	})
	s.AddTool(mcp.NewTool("tracker_stats"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var counts map[string]int
		//lint:ignore SA5000 the nil map write is the panic under test
		counts["open"]++
		return nil, nil
	})
	return s
}

// TestMigrationSection follows the README's "Migrating an existing server"
// step by step, from a plain server with plain errors: the table of what
// the one line changes, then each of the three next steps.
func TestMigrationSection(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.md"), []byte("hello"), 0o600))
	missing := "issues/42/screenshot.png"
	withRecovery := []server.ServerOption{server.WithRecovery()}

	// Before: every failure is a JSON-RPC error the model never sees, and
	// WithRecovery puts the panic value on the wire.
	before := middlewaretest.FromServer(t, trackerServer(dir, withRecovery))
	for _, c := range []struct {
		tool string
		args any
	}{{"tracker_read_attachment", map[string]any{"path": missing}}, {"tracker_save", nil}, {"tracker_list", map[string]any{"limit": "ten"}}, {"tracker_sync", nil}, {"tracker_list", map[string]any{"limit": 500}}} {
		before.CallTool(c.tool, c.args).ExpectProtocolError(mcp.INTERNAL_ERROR)
	}
	assert.NotEmpty(t, middlewaretest.Leaks(before.CallTool("tracker_sync", nil).Raw, "hunter2"), "plain mcp-go leaks the DSN password")
	assert.Contains(t, string(before.CallTool("tracker_stats", nil).Raw), "nil map", "WithRecovery sends the panic value")

	// The one line. WithRecovery stays, as step 3 says.
	log := middlewaretest.NewLog(t)
	after := middlewaretest.FromServer(t, trackerServer(dir, withRecovery, middleware.Default(middleware.WithLogger(log.Logger()))...))
	// The path the agent sent comes back intact; the server's own
	// directory, which the agent never sent, does not.
	abs := filepath.Join(dir, missing)
	after.CallTool("tracker_read_attachment", map[string]any{"path": abs}).ExpectError(envelope.NotFound).ExpectNextStep("Verify the identifier").ExpectMessage(abs)
	after.CallTool("tracker_read_attachment", map[string]any{"path": missing}).ExpectError(envelope.NotFound).NoLeak(dir)
	after.CallTool("tracker_read_attachment", map[string]any{"path": "notes.md"}).ExpectSuccess()
	after.CallTool("tracker_save", nil).ExpectError(envelope.AccessDenied).ExpectNextStep("Do not retry")
	after.CallTool("tracker_list", map[string]any{"limit": "ten"}).ExpectError(envelope.ValidationError).ExpectField("limit", "type")
	r := after.CallTool("tracker_sync", nil).ExpectError(envelope.ExecutionFailed).ExpectNextStep("timed out").NoLeak("hunter2")
	assert.True(t, r.Envelope.Retryable)
	r = after.CallTool("tracker_list", map[string]any{"limit": 500}).ExpectError(envelope.InternalError).NoLeak()
	assert.NotContains(t, r.Envelope.Message, "limit must be")
	log.ExpectIncident(r, "limit must be between 1 and 100, got 500")
	after.CallTool("tracker_create", map[string]any{"title": ""}).ExpectError(envelope.ExecutionFailed).ExpectMessage("title is required")
	r = after.CallTool("tracker_stats", nil).ExpectError(envelope.InternalError).NoLeak("nil map")
	log.ExpectIncident(r, "assignment to entry in nil map")

	// Step 1: the plain texts are written for the agent, so send them.
	opted := middlewaretest.FromServer(t, trackerServer(dir, withRecovery, middleware.Default(
		middleware.WithLogger(log.Logger()),
		middleware.WithEnvelopeOptions(envelope.WithUnclassified(envelope.ExecutionFailed)))...))
	opted.CallTool("tracker_list", map[string]any{"limit": 500}).ExpectError(envelope.ExecutionFailed).ExpectMessage("limit must be between 1 and 100, got 500")
	opted.CallTool("tracker_stats", nil).ExpectError(envelope.InternalError).NoLeak("nil map")

	// Step 2: mcp-go's own schema validation answers before any layer, in
	// text; that is why the README says to drop it for validate.
	strict := middlewaretest.FromServer(t, trackerServer(dir, []server.ServerOption{server.WithInputSchemaValidation()}, middleware.Default()...))
	sv := strict.CallTool("tracker_list", map[string]any{"limit": "ten"})
	// If this starts failing, mcp-go's validation reaches the layers now:
	// revisit the README's step 2.
	assert.True(t, sv.IsError())
	assert.Nil(t, sv.Envelope, "answered before any layer, so no envelope: %s", sv.Raw)
	assert.Contains(t, sv.Text(), "input schema validation failed")
}

// errLocked is the tracker's own error for an issue nobody may edit.
var errLocked = errors.New("issue is locked")

// saveIssue is tracker_save after step 1: it returns Go errors, which the
// chain classifies; before, it built mcp.NewToolResultError itself.
func saveIssue(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if req.GetString("title", "") == "" {
		return nil, fmt.Errorf("save issue 42: %w", errLocked)
	}
	return mcp.NewToolResultText("saved"), nil
}

// TestMigrationExistingTests follows the migration guide's "your existing
// tests" step: a handler-level test that calls the handler directly and
// expected (an isError result, nil) gets (nil, err) once the handler
// returns Go errors. Wrapped in the chain built from the server's own
// options, it gets what a client receives, the mapping included, where
// envelope.ErrorResult without a server in the context does not know it.
func TestMigrationExistingTests(t *testing.T) {
	t.Parallel()
	guard := []middleware.Option{middleware.WithEnvelopeOptions(envelope.WithMapping(errLocked, envelope.AccessDenied))}
	req := mcp.CallToolRequest{}
	req.Params.Name = "tracker_save"
	req.Params.Arguments = map[string]any{"title": ""}

	// The test as it was: it now sees a Go error, not a result.
	res, err := saveIssue(context.Background(), req)
	assert.Nil(t, res)
	assert.ErrorIs(t, err, errLocked)

	// The guide's step: call the handler through the server's chain.
	res, err = middleware.Wrap(saveIssue, middleware.Default(guard...)...)(context.Background(), req)
	require.NoError(t, err)
	require.True(t, res.IsError)
	env, ok := envelope.FromResult(res)
	require.True(t, ok)
	assert.Equal(t, envelope.AccessDenied, env.ErrorType)
	assert.Equal(t, "save issue 42: issue is locked", env.Message)

	// The shim alone, outside a server, does not know the chain's mapping.
	shim, _ := envelope.FromResult(envelope.ErrorResult(context.Background(), req, fmt.Errorf("save issue 42: %w", errLocked)))
	assert.Equal(t, envelope.InternalError, shim.ErrorType)

	// And on the wire, behind the same chain, the client reads the same.
	s := server.NewMCPServer("tracker", "1.0.0", server.WithToolCapabilities(false))
	s.Use(middleware.Default(guard...)...)
	s.AddTool(mcp.NewTool("tracker_save", mcp.WithString("title")), saveIssue)
	wire := middlewaretest.FromServer(t, s).CallTool("tracker_save", map[string]any{"title": ""}).ExpectError(envelope.AccessDenied)
	assert.Equal(t, env.Message, wire.Envelope.Message)
}
