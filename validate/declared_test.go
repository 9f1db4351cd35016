package validate_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/audit"
	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/validate"
)

// plainServer is written the way public mcp-go servers are: schemas from
// mcp.WithString and friends, handlers that read their arguments by hand
// and act on defaults. layers is the one line, or nothing.
func plainServer(ran *atomic.Int64, layers ...server.ToolHandlerMiddleware) *server.MCPServer {
	s := server.NewMCPServer("files", "1.0.0", server.WithToolCapabilities(false))
	if len(layers) > 0 {
		s.Use(layers...)
	}
	s.AddTool(mcp.NewTool("fs_read_file", mcp.WithDescription("Read a file."),
		mcp.WithString("path", mcp.Required(), mcp.Description("File to read")),
		mcp.WithString("encoding", mcp.Enum("utf-8", "base64")),
		mcp.WithNumber("max_bytes", mcp.Min(1), mcp.Max(65536))),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran.Add(1)
			return mcp.NewToolResultText(fmt.Sprintf("read %q (%s, %d bytes)", req.GetString("path", "."),
				req.GetString("encoding", "utf-8"), req.GetInt("max_bytes", 4096))), nil
		})
	s.AddTool(mcp.NewTool("git_log", mcp.WithDescription("Show the commit log."),
		mcp.WithString("repo_path", mcp.Required()),
		mcp.WithNumber("max_count", mcp.Min(1), mcp.Max(50)),
		mcp.WithBoolean("all")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran.Add(1)
			repo := req.GetString("repo_path", "")
			if repo == "" {
				return mcp.NewToolResultError("repo_path is required"), nil
			}
			return mcp.NewToolResultText(fmt.Sprintf("log of %s: %d commits, all=%v", repo, req.GetInt("max_count", 10), req.GetBool("all", false))), nil
		})
	s.AddTool(mcp.NewTool("fs_ping", mcp.WithDescription("Check the server is up.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("pong"), nil
		})
	return s
}

// ruleD audits s through a real mcp-go client with the probe.
func ruleD(t *testing.T, s *server.MCPServer) audit.Score {
	t.Helper()
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	r, err := audit.Client(ctx, c, audit.WithProbe())
	if err != nil {
		t.Fatal(err)
	}
	if r.Scores.D == nil {
		t.Fatal("no rule D score")
	}
	return *r.Scores.D
}

// TestDeclaredSchemasScoreRuleD is the "done when": the one line
// on a plain server takes rule D from below 60% to 100%.
func TestDeclaredSchemasScoreRuleD(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	without := ruleD(t, plainServer(&ran))
	if without.Percent >= 60 {
		t.Errorf("without the line: rule D %v%%, want below 60%%", without.Percent)
	}
	ran.Store(0)
	with := ruleD(t, plainServer(&ran, middleware.Default()...))
	if with.Percent != 100 || with.Checked == 0 {
		t.Errorf("with the line: rule D %+v, want 100%%", with)
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("handlers ran %d times on the probe's invalid calls", n)
	}
}

func TestDeclaredSchemasAnswerWithFields(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	s := middlewaretest.FromServer(t, plainServer(&ran, middleware.Default()...))
	s.CallTool("fs_read_file", map[string]any{"path": 12345}).
		ExpectError(envelope.ValidationError).ExpectField("path", "type").
		ExpectMessage("path must be a string, not a number")
	s.CallTool("fs_read_file", map[string]any{}).ExpectError(envelope.ValidationError).ExpectField("path", "required")
	r := s.CallTool("fs_read_file", map[string]any{"path": "a", "encoding": "UTF-8"}).
		ExpectError(envelope.ValidationError).ExpectField("encoding", "oneof")
	if f := r.Field("encoding"); f == nil || f.Suggestion != "utf-8" || strings.Join(f.Allowed, ",") != "utf-8,base64" {
		t.Errorf("enum field: %+v", f)
	}
	s.CallTool("git_log", map[string]any{"repo_path": "/r", "max_count": 500}).
		ExpectError(envelope.ValidationError).ExpectField("max_count", "max").ExpectNextStep("")
	s.CallTool("git_log", nil).ExpectError(envelope.ValidationError).ExpectField("repo_path", "required")
	if n := ran.Load(); n != 0 {
		t.Errorf("the handler ran %d times on invalid arguments", n)
	}
	s.CallTool("fs_ping", map[string]any{"anything": 1}).ExpectSuccess()
	s.CallTool("git_log", map[string]any{"repo_path": "/r"}).ExpectSuccess()
}

// TestDeclaredSchemasConvertLosslessStrings: "5" and "true" for a declared
// integer and boolean still reach the handler as GetInt and GetBool read
// them, as they did without the line.
func TestDeclaredSchemasConvertLosslessStrings(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	s := middlewaretest.FromServer(t, plainServer(&ran, middleware.Default()...))
	r := s.CallTool("git_log", map[string]any{"repo_path": "/r", "max_count": "5", "all": "true"}).ExpectSuccess()
	if r.Text() != "log of /r: 5 commits, all=true" {
		t.Errorf("the handler read %q", r.Text())
	}
	s.CallTool("git_log", map[string]any{"repo_path": "/r", "max_count": "five"}).
		ExpectError(envelope.ValidationError).ExpectField("max_count", "type")
}

func TestDeclaredSchemasOptOut(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	off := middlewaretest.FromServer(t, plainServer(&ran, middleware.Default(middleware.WithoutDeclaredSchemas())...))
	off.CallTool("fs_read_file", map[string]any{"path": 12345}).ExpectSuccess()
	some := middlewaretest.FromServer(t, plainServer(&ran, middleware.Default(middleware.WithoutDeclaredSchemas("fs_read_file"))...))
	some.CallTool("fs_read_file", map[string]any{"path": 12345}).ExpectSuccess()
	some.CallTool("git_log", map[string]any{"repo_path": 1}).ExpectError(envelope.ValidationError)
}

// TestDeclaredSchemasAlone: the layer works without the default chain,
// and stays an isError result.
func TestDeclaredSchemasAlone(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	s := middlewaretest.FromServer(t, plainServer(&ran, validate.DeclaredSchemas()))
	s.CallTool("fs_read_file", map[string]any{"path": true}).ExpectError(envelope.ValidationError).ExpectField("path", "type")
}

// TestDeclaredSchemasFollowReRegistration: a tool registered again with
// another schema is checked against the new one.
func TestDeclaredSchemasFollowReRegistration(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	srv := plainServer(&ran, middleware.Default()...)
	s := middlewaretest.FromServer(t, srv)
	s.CallTool("fs_read_file", map[string]any{"path": "a", "max_bytes": 100}).ExpectSuccess()
	srv.AddTool(mcp.NewTool("fs_read_file", mcp.WithString("path", mcp.Required()), mcp.WithNumber("max_bytes", mcp.Max(10))),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("v2"), nil
		})
	s.CallTool("fs_read_file", map[string]any{"path": "a", "max_bytes": 100}).ExpectError(envelope.ValidationError).ExpectField("max_bytes", "max")
	s.CallTool("fs_read_file", map[string]any{"path": "a", "max_bytes": 5}).ExpectSuccess()
}

// TestDeclaredSchemasBadSchemaNeverFailsACall: a schema the library
// cannot compile turns enforcement off for the tool, with one warning.
func TestDeclaredSchemasBadSchemaNeverFailsACall(t *testing.T) {
	t.Parallel()
	log := middlewaretest.NewLog(t)
	srv := server.NewMCPServer("t", "1", server.WithToolCapabilities(false))
	srv.Use(middleware.Default(middleware.WithLogger(log.Logger()))...)
	srv.AddTool(mcp.NewToolWithRawSchema("odd", "d", []byte(`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		})
	s := middlewaretest.FromServer(t, srv)
	for range 3 {
		s.CallTool("odd", map[string]any{"a": 1}).ExpectSuccess()
	}
	warnings := 0
	for _, r := range log.Records() {
		if r["msg"] == "mcpguard: the tool's declared input schema is not enforced" {
			warnings++
		}
	}
	if warnings != 1 {
		t.Errorf("%d warnings, want one: %v", warnings, log.Records())
	}
}

type boundArgs struct {
	Query string `json:"query" validate:"required,min=3"`
	Limit int    `json:"limit,omitempty" validate:"omitempty,max=50"`
}

// TestDeclaredSchemasLeaveBoundToolsToArgs: a tool whose schema is
// InputSchema[T] and whose handler Handler[T] binds is checked once, by
// validate. Had the layer checked it too, it would have converted "5" for
// the integer, which validate (without WithCoercion) refuses.
func TestDeclaredSchemasLeaveBoundToolsToArgs(t *testing.T) {
	t.Parallel()
	srv := server.NewMCPServer("t", "1", server.WithToolCapabilities(false))
	srv.Use(middleware.Default()...)
	var ran atomic.Int64
	srv.AddTool(mcp.NewTool("search", validate.InputSchema[boundArgs]()),
		validate.Handler(func(_ context.Context, _ mcp.CallToolRequest, a boundArgs) (*mcp.CallToolResult, error) {
			ran.Add(1)
			return mcp.NewToolResultText(a.Query), nil
		}))
	s := middlewaretest.FromServer(t, srv)
	s.CallTool("search", map[string]any{"query": "abc", "limit": "5"}).ExpectError(envelope.ValidationError).
		ExpectField("limit", "type")
	s.CallTool("search", map[string]any{"query": "abc"}).ExpectSuccess()
	if ran.Load() != 1 {
		t.Errorf("handler ran %d times, want 1", ran.Load())
	}
}

// TestDeclaredSchemasHostileArguments: deep nesting, megabyte arrays and
// arguments that are not an object get a bounded validation_error, and
// the handler never runs.
func TestDeclaredSchemasHostileArguments(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	s := middlewaretest.FromServer(t, plainServer(&ran, middleware.Default()...))
	deep := any("x")
	for range 9000 { // encoding/json, which mcp-go decodes with, stops at 10,000
		deep = []any{deep}
	}
	big := make([]any, 1<<19)
	for i := range big {
		big[i] = 1
	}
	for name, c := range map[string]struct {
		args any
		rule string
	}{
		"9,000 levels":  {map[string]any{"path": "a", "x": deep}, "depth"},
		"1 MiB array":   {map[string]any{"path": "a", "x": big}, "size"},
		"an array":      {[]any{1, 2}, "type"},
		"a string":      {"path", "type"},
		"a number":      {12, "type"},
		"null":          {nil, "required"},
		"path is null":  {map[string]any{"path": nil}, "type"},
		"unknown types": {map[string]any{"path": []any{}, "encoding": map[string]any{}, "max_bytes": true}, "type"},
	} {
		r := s.CallTool("fs_read_file", c.args).ExpectError(envelope.ValidationError)
		if len(r.Raw) > 24<<10 {
			t.Errorf("%s: a %d-byte answer", name, len(r.Raw))
		}
		if r.Envelope == nil || len(r.Envelope.Fields) == 0 || r.Envelope.Fields[0].Rule != c.rule {
			t.Errorf("%s: %s, want a %s field first", name, r.Raw, c.rule)
		}
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("the handler ran %d times", n)
	}
}

type optionalArgs struct {
	Query string `json:"query,omitempty" validate:"omitempty,max=100"`
	Limit int    `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
}

// TestDeclaredSchemasLeaveOptionalOnlyStructsToArgs: a struct without
// required members, whose schema mcp-go writes with "required": [], is
// still recognized as validate's, so Args' conventions hold (a null or
// zero optional member is absent).
func TestDeclaredSchemasLeaveOptionalOnlyStructsToArgs(t *testing.T) {
	t.Parallel()
	srv := server.NewMCPServer("t", "1", server.WithToolCapabilities(false))
	srv.Use(middleware.Default()...)
	srv.AddTool(mcp.NewTool("search", mcp.WithDescription("d"), validate.InputSchema[optionalArgs]()),
		middleware.Wrap(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		}, validate.Args[optionalArgs]()))
	s := middlewaretest.FromServer(t, srv)
	s.CallTool("search", map[string]any{"query": nil, "limit": 0}).ExpectSuccess()
}

// patternServer declares JSON Schema patterns, which are ECMA-262: \S is
// not any of ECMA's white space (U+00A0 among it), "." is no line
// terminator (\r among them).
func patternServer(ran *atomic.Int64) *server.MCPServer {
	s := server.NewMCPServer("mail", "1.0.0", server.WithToolCapabilities(false))
	s.Use(middleware.Default()...)
	s.AddTool(mcp.NewTool("send_mail",
		mcp.WithString("user", mcp.Required(), mcp.Pattern(`^\S+$`)),
		mcp.WithString("subject", mcp.Required(), mcp.Pattern(`^.{1,40}$`))),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran.Add(1)
			return mcp.NewToolResultText("sent to " + req.GetString("user", "")), nil
		})
	return s
}

// TestDeclaredPatternsMeanWhatJSONSchemaSays: read with Go's own syntax,
// ^\S+$ accepts "bob\u00a0admin" and ^.{1,40}$ a header injected after a
// \r; read as ECMA-262, as the schema's author and every JSON Schema
// validator in JavaScript read them, both are refused.
func TestDeclaredPatternsMeanWhatJSONSchemaSays(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	s := middlewaretest.FromServer(t, patternServer(&ran))
	s.CallTool("send_mail", map[string]any{"user": "bob\u00a0admin", "subject": "hi"}).
		ExpectError(envelope.ValidationError).ExpectField("user", "pattern")
	s.CallTool("send_mail", map[string]any{"user": "bob\u3000admin", "subject": "hi"}).
		ExpectError(envelope.ValidationError).ExpectField("user", "pattern")
	s.CallTool("send_mail", map[string]any{"user": "bob", "subject": "hello\rX-Injected: 1"}).
		ExpectError(envelope.ValidationError).ExpectField("subject", "pattern")
	s.CallTool("send_mail", map[string]any{"user": "bob", "subject": "hello\u2028X"}).
		ExpectError(envelope.ValidationError).ExpectField("subject", "pattern")
	if n := ran.Load(); n != 0 {
		t.Errorf("the handler ran %d times on values the patterns refuse", n)
	}
	if got := s.CallTool("send_mail", map[string]any{"user": "bob", "subject": "hello"}).ExpectSuccess().Text(); got != "sent to bob" {
		t.Errorf("the handler answered %q", got)
	}
}
