package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// gitSchema is what a go-sdk server written by hand declares for a
// low-level tool.
var gitSchema = json.RawMessage(`{"type":"object","properties":{
	"repo_path":{"type":"string"},
	"max_count":{"type":"integer","minimum":1,"maximum":50},
	"format":{"type":"string","enum":["oneline","full"]},
	"all":{"type":"boolean"}},
	"required":["repo_path"]}`)

type gitArgs struct {
	RepoPath string `json:"repo_path" jsonschema:"the repository"`
	MaxCount int    `json:"max_count,omitempty" jsonschema:"commits to show"`
}

// plainGoSDKServer has a low-level tool that reads its arguments by hand
// and an mcp.AddTool tool, which go-sdk validates itself.
func plainGoSDKServer(ran *atomic.Int64, mw ...mcp.Middleware) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "git", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "git_log", Description: "Show the commit log.", InputSchema: gitSchema},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran.Add(1)
			var a map[string]any
			_ = json.Unmarshal(req.Params.Arguments, &a)
			repo, _ := a["repo_path"].(string)
			n, _ := a["max_count"].(float64)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("log of %q: %v commits", repo, n)}}}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "git_show", Description: "Show a commit."},
		func(_ context.Context, _ *mcp.CallToolRequest, a gitArgs) (*mcp.CallToolResult, any, error) {
			ran.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "show " + a.RepoPath}}}, nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "git_ping", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil
		})
	for _, m := range mw {
		s.AddReceivingMiddleware(m)
	}
	return s
}

func TestDeclaredSchemasOnLowLevelTools(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	s := gosdktest.Connect(t, plainGoSDKServer(&ran, gosdk.Middleware()))
	// Called before any tools/list: the Middleware lists the tools itself.
	s.Call("git_log", map[string]any{"repo_path": 12345}).
		ExpectError(gosdk.ValidationError).ExpectField("repo_path", "type").
		ExpectMessage("repo_path must be a string, not a number")
	s.Call("git_log", nil).ExpectError(gosdk.ValidationError).ExpectField("repo_path", "required")
	r := s.Call("git_log", map[string]any{"repo_path": "/r", "format": "OneLine"}).
		ExpectError(gosdk.ValidationError).ExpectField("format", "oneof")
	if f := r.Field("format"); f == nil || f.Suggestion != "oneline" {
		t.Errorf("enum field: %+v", f)
	}
	s.Call("git_log", map[string]any{"repo_path": "/r", "max_count": 99}).ExpectError(gosdk.ValidationError).ExpectField("max_count", "max")
	if n := ran.Load(); n != 0 {
		t.Errorf("the handler ran %d times on invalid arguments", n)
	}
	// "5" for the integer is converted, as the handler reads it.
	if got := s.Call("git_log", map[string]any{"repo_path": "/r", "max_count": "5"}).ExpectSuccess().Text(); got != `log of "/r": 5 commits` {
		t.Errorf("the handler read %q", got)
	}
	s.Call("git_ping", map[string]any{"x": 1}).ExpectSuccess()
}

// TestDeclaredSchemasOnAddToolTools: go-sdk's own mcp.AddTool answers a
// bad call in text (validating "arguments": …); behind the Middleware the
// agent gets the fields instead.
func TestDeclaredSchemasOnAddToolTools(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	bare := gosdktest.Connect(t, plainGoSDKServer(&ran))
	if got := bare.Call("git_show", map[string]any{"repo_path": "/r", "nam": 1}).Text(); !strings.Contains(got, `validating "arguments"`) {
		t.Fatalf("go-sdk's own answer changed: %s", got)
	}
	s := gosdktest.Connect(t, plainGoSDKServer(&ran, gosdk.Middleware()))
	s.ListTools()
	s.Call("git_show", map[string]any{"repo_path": "/r", "nam": 1}).
		ExpectError(gosdk.ValidationError).ExpectField("nam", "unknown")
	s.Call("git_show", map[string]any{}).ExpectError(gosdk.ValidationError).ExpectField("repo_path", "required")
	s.Call("git_show", map[string]any{"repo_path": "/r"}).ExpectSuccess()
}

func TestDeclaredSchemasOptOutOnGoSDK(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	off := gosdktest.Connect(t, plainGoSDKServer(&ran, gosdk.Middleware(gosdk.WithoutDeclaredSchemas())))
	off.Call("git_log", map[string]any{"repo_path": 1}).ExpectSuccess()
	some := gosdktest.Connect(t, plainGoSDKServer(&ran, gosdk.Middleware(gosdk.WithoutDeclaredSchemas("git_log"))))
	some.Call("git_log", map[string]any{"repo_path": 1}).ExpectSuccess()
	some.Call("git_show", map[string]any{"repo_path": 1}).ExpectError(gosdk.ValidationError).ExpectField("repo_path", "type")
}

// TestDeclaredSchemasFollowToolsListOnGoSDK: a tool added again with
// another schema is checked against the one the next tools/list shows.
func TestDeclaredSchemasFollowToolsListOnGoSDK(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	srv := plainGoSDKServer(&ran, gosdk.Middleware())
	s := gosdktest.Connect(t, srv)
	s.Call("git_log", map[string]any{"repo_path": "/r", "max_count": 40}).ExpectSuccess()
	srv.AddTool(&mcp.Tool{Name: "git_log", InputSchema: json.RawMessage(`{"type":"object","properties":{"repo_path":{"type":"string"},"max_count":{"type":"integer","maximum":10}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "v2"}}}, nil
		})
	s.ListTools()
	s.Call("git_log", map[string]any{"repo_path": "/r", "max_count": 40}).ExpectError(gosdk.ValidationError).ExpectField("max_count", "max")
}

type boundGit struct {
	RepoPath string `json:"repo_path" validate:"required"`
	MaxCount int    `json:"max_count,omitempty" validate:"omitempty,max=50"`
}

// TestDeclaredSchemasLeaveGosdkAddToolAlone: gosdk.AddTool checks its own
// tools; had the Middleware checked them too, it would have converted "5"
// for the integer, which gosdk.AddTool refuses.
func TestDeclaredSchemasLeaveGosdkAddToolAlone(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	gosdk.AddTool(srv, &mcp.Tool{Name: "bound"}, func(context.Context, *mcp.CallToolRequest, boundGit) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	srv.AddReceivingMiddleware(gosdk.Middleware())
	s := gosdktest.Connect(t, srv)
	s.ListTools()
	s.Call("bound", map[string]any{"repo_path": "/r", "max_count": "5"}).ExpectError(gosdk.ValidationError).ExpectField("max_count", "type")
	s.Call("bound", map[string]any{"repo_path": "/r", "max_count": 5}).ExpectSuccess()
}

// TestDeclaredSchemasOneMiddlewareTwoServers: one Middleware value on two
// servers checks each server's tool against that server's schema.
func TestDeclaredSchemasOneMiddlewareTwoServers(t *testing.T) {
	t.Parallel()
	mw := gosdk.Middleware()
	serve := func(schema string) *gosdktest.Session {
		s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		s.AddTool(&mcp.Tool{Name: "same_name", InputSchema: json.RawMessage(schema)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
		s.AddReceivingMiddleware(mw)
		return gosdktest.Connect(t, s)
	}
	strict := serve(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	free := serve(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	strict.Call("same_name", map[string]any{}).ExpectError(gosdk.ValidationError).ExpectField("path", "required")
	free.Call("same_name", map[string]any{}).ExpectSuccess()
	free.Call("same_name", map[string]any{"n": "x"}).ExpectError(gosdk.ValidationError).ExpectField("n", "type")
}

// TestDeclaredSchemasHostileArgumentsOnGoSDK: arguments that are not an
// object, missing, or nested past the bound get a validation_error with
// fields, and the low-level handler never runs.
func TestDeclaredSchemasHostileArgumentsOnGoSDK(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	s := gosdktest.Connect(t, plainGoSDKServer(&ran, gosdk.Middleware()))
	deep := any("x")
	for range 200 {
		deep = []any{deep}
	}
	for name, c := range map[string]struct {
		args any
		rule string
	}{
		"missing":  {nil, "required"},
		"an array": {[]any{1}, "type"},
		"a string": {"repo", "type"},
		"deep":     {map[string]any{"repo_path": "/r", "x": deep}, "depth"},
	} {
		r := s.Call("git_log", c.args).ExpectError(gosdk.ValidationError)
		if f := r.Field(""); c.rule != "required" && (f == nil || f.Rule != c.rule) {
			t.Errorf("%s: %s, want a %s field", name, r.Raw, c.rule)
		}
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("the handler ran %d times", n)
	}
}

// TestDeclaredSchemasFollowAToolReAddedUnderItsName: a tool removed and
// added again under a name the Middleware knows, with another schema, is
// checked against its new schema from its first call, with no tools/list
// in between (issue 35): the old schema allowed max_count 40, the new one
// refuses it, and the new handler, which binds with encoding/json, never
// runs on it.
func TestDeclaredSchemasFollowAToolReAddedUnderItsName(t *testing.T) {
	t.Parallel()
	var ran, ranV2 atomic.Int64
	srv := plainGoSDKServer(&ran, gosdk.Middleware())
	s := gosdktest.Connect(t, srv)
	s.Call("git_log", map[string]any{"repo_path": "/r", "max_count": 40}).ExpectSuccess()
	srv.RemoveTools("git_log")
	srv.AddTool(&mcp.Tool{Name: "git_log", InputSchema: json.RawMessage(`{"type":"object","properties":{"repo_path":{"type":"string"},"max_count":{"type":"integer","maximum":10}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				MaxCount int `json:"max_count"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &a)
			ranV2.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint("v2 ", a.MaxCount)}}}, nil
		})
	s.Call("git_log", map[string]any{"repo_path": "/r", "max_count": 40}).ExpectError(gosdk.ValidationError).ExpectField("max_count", "max")
	if n := ranV2.Load(); n != 0 {
		t.Errorf("the re-added handler ran %d times on arguments its schema refuses", n)
	}
	if got := s.Call("git_log", map[string]any{"repo_path": "/r", "max_count": 5}).ExpectSuccess().Text(); got != "v2 5" {
		t.Errorf("the re-added tool answered %q, want %q", got, "v2 5")
	}
}

// TestDeclaredPatternsMeanWhatJSONSchemaSaysOnGoSDK: a low-level tool's
// patterns are ECMA-262, as on mcp-go: \S is not U+00A0, "." is not \r.
func TestDeclaredPatternsMeanWhatJSONSchemaSaysOnGoSDK(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	srv := mcp.NewServer(&mcp.Implementation{Name: "mail", Version: "1.0.0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "send_mail", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"user":{"type":"string","pattern":"^\\S+$"},
		"subject":{"type":"string","pattern":"^.{1,40}$"}},"required":["user","subject"]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sent"}}}, nil
		})
	srv.AddReceivingMiddleware(gosdk.Middleware())
	s := gosdktest.Connect(t, srv)
	s.Call("send_mail", map[string]any{"user": "bob\u00a0admin", "subject": "hi"}).
		ExpectError(gosdk.ValidationError).ExpectField("user", "pattern")
	s.Call("send_mail", map[string]any{"user": "bob", "subject": "hello\rX-Injected: 1"}).
		ExpectError(gosdk.ValidationError).ExpectField("subject", "pattern")
	if n := ran.Load(); n != 0 {
		t.Errorf("the handler ran %d times on values the patterns refuse", n)
	}
	s.Call("send_mail", map[string]any{"user": "bob", "subject": "hello"}).ExpectSuccess()
}
