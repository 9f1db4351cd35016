package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	core "github.com/mcpguard/mcpguard/core/validate"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// openArgs is what a low-level go-sdk handler binds with encoding/json,
// which matches members to fields whatever their letter case and keeps
// the last of a member sent twice.
type openArgs struct {
	Path  string `json:"path"`
	Mode  string `json:"mode"`
	Limit int64  `json:"limit"`
}

var openSchema = json.RawMessage(`{"type":"object","properties":{
	"path":{"type":"string","pattern":"^[a-z]+\\.txt$"},
	"mode":{"type":"string","enum":["read","stat"]},
	"limit":{"type":"integer","maximum":9007199254740992}},
	"required":["path"]}`)

// openServer serves files_open as go-sdk servers are written by hand: a
// declared schema and a handler that decodes its arguments with
// encoding/json and echoes what it read.
func openServer(ran *atomic.Int64) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "files_open", InputSchema: openSchema},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran.Add(1)
			var a openArgs
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s|%s|%d", a.Path, a.Mode, a.Limit)}}}, nil
		})
	s.AddReceivingMiddleware(gosdk.Middleware())
	return s
}

// TestDeclaredRefusesMembersReadersDisagreeOnGoSDK: the go-sdk side of
// validate's TestDeclaredRefusesMembersReadersDisagreeOn. On main,
// {"path":"notes.txt","PATH":"../../etc/passwd"} passed the declared
// pattern and the handler read ../../etc/passwd.
func TestDeclaredRefusesMembersReadersDisagreeOnGoSDK(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	s := gosdktest.Connect(t, openServer(&ran))
	for _, c := range []struct{ args, field, rule string }{
		{`{"path":"notes.txt","PATH":"../../etc/passwd"}`, "PATH", "unknown"},
		{`{"PATH":"../../etc/passwd","path":"notes.txt"}`, "PATH", "unknown"},
		{`{"path":"notes.txt","Mode":"write"}`, "Mode", "unknown"},
		{`{"path":"../../etc/passwd","path":"notes.txt"}`, "path", "duplicate"},
		{`{"path":"../../etc/passwd","p\u0061th":"notes.txt"}`, "path", "duplicate"},
		{`{"path":"notes.txt","x":{"a":1,"A":2}}`, "x.A", "duplicate"},
	} {
		s.Call("files_open", json.RawMessage(c.args)).ExpectError(gosdk.ValidationError).ExpectField(c.field, c.rule)
	}
	if n := ran.Load(); n != 0 {
		t.Fatalf("the handler ran %d times on arguments its reader reads otherwise", n)
	}
	if got := s.Call("files_open", json.RawMessage(`{"path":"notes.txt","mode":"read"}`)).ExpectSuccess().Text(); got != "notes.txt|read|0" {
		t.Fatalf("a valid call: %s", got)
	}
}

// TestDeclaredComparesIntegersExactlyOnGoSDK: 2^53+1 breaks a maximum of
// 2^53 (go-sdk hands the check the raw arguments).
func TestDeclaredComparesIntegersExactlyOnGoSDK(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	s := gosdktest.Connect(t, openServer(&ran))
	s.Call("files_open", json.RawMessage(`{"path":"notes.txt","limit":9007199254740993}`)).ExpectError(gosdk.ValidationError).ExpectField("limit", "max")
	if got := s.Call("files_open", json.RawMessage(`{"path":"notes.txt","limit":9007199254740992}`)).ExpectSuccess().Text(); got != "notes.txt||9007199254740992" {
		t.Fatalf("the bound itself: %s", got)
	}
}

type claimedGit struct {
	RepoPath string `json:"repo_path" validate:"required"`
	MaxCount int    `json:"max_count,omitempty" validate:"omitempty,max=50"`
}

// TestDeclaredChecksLowLevelToolsOfAnAddToolSchema: a low-level tool whose
// hand-written schema equals the one gosdk.AddTool derives for a struct
// is still checked: its handler is not AddTool's. On main it was skipped
// as soon as the AddTool tool existed.
func TestDeclaredChecksLowLevelToolsOfAnAddToolSchema(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	gosdk.AddTool(srv, &mcp.Tool{Name: "bound"}, func(context.Context, *mcp.CallToolRequest, claimedGit) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	var ran atomic.Int64
	srv.AddTool(&mcp.Tool{Name: "plain", InputSchema: json.RawMessage(core.NewBinder[claimedGit]().Schema())},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
		})
	srv.AddReceivingMiddleware(gosdk.Middleware())
	s := gosdktest.Connect(t, srv)
	s.Call("plain", map[string]any{"repo_path": "/r", "max_count": 9999}).ExpectError(gosdk.ValidationError).ExpectField("max_count", "max")
	if n := ran.Load(); n != 0 {
		t.Fatalf("the plain handler ran %d times", n)
	}
	s.Call("bound", map[string]any{"repo_path": "/r", "max_count": "5"}).ExpectError(gosdk.ValidationError).ExpectField("max_count", "type")
}

// costlyGoSDK serves costly (a pattern after maxLength, a heavy pattern,
// an anyOf whose branches fail alike) and lookahead (a pattern RE2 cannot
// compile beside a bound) as low-level tools.
func costlyGoSDK(t *testing.T, ran *atomic.Int64, log *gosdktest.Log) *gosdktest.Session {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	for name, schema := range map[string]string{
		"costly": `{"type":"object","properties":{
			"key":{"type":"string","maxLength":64,"pattern":"[A-Za-z0-9_-]{20,40}x"},
			"body":{"type":"string","pattern":"^(?:[a-z]+\\.)*[a-z]+$"},
			"target":{"anyOf":[{"type":"string","format":"uri"},{"type":"string","pattern":"^/"}]}}}`,
		"lookahead": `{"type":"object","properties":{
			"role":{"type":"string","pattern":"^(?!admin).*$"},
			"limit":{"type":"integer","maximum":50}}}`,
	} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(schema)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				ran.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
			})
	}
	s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithLogger(log.Logger())))
	return gosdktest.Connect(t, s)
}

// TestDeclaredRunsCheapKeywordsFirstOnGoSDK: see validate's
// TestDeclaredRunsCheapKeywordsFirst.
func TestDeclaredRunsCheapKeywordsFirstOnGoSDK(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	s := costlyGoSDK(t, &ran, gosdktest.NewLog(t))
	r := s.Call("costly", map[string]any{"key": strings.Repeat("A", 1<<19)}).ExpectError(gosdk.ValidationError).ExpectField("key", "max")
	if len(r.Envelope.Fields) != 1 {
		t.Errorf("the pattern ran on a value maxLength refuses: %+v", r.Envelope.Fields)
	}
	s.Call("costly", map[string]any{"body": strings.Repeat("a", 1<<19+1<<18)}).ExpectError(gosdk.ValidationError).ExpectField("", "size")
	s.Call("costly", map[string]any{"body": strings.Repeat("a", 1<<10)}).ExpectSuccess()
	if n := ran.Load(); n != 1 {
		t.Fatalf("the handler ran %d times, want once", n)
	}
}

// TestDeclaredListsUnionFailuresOnceOnGoSDK: see validate's
// TestDeclaredListsUnionFailuresOnce.
func TestDeclaredListsUnionFailuresOnceOnGoSDK(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	s := costlyGoSDK(t, &ran, gosdktest.NewLog(t))
	r := s.Call("costly", map[string]any{"target": 5}).ExpectError(gosdk.ValidationError).ExpectField("target", "type")
	if len(r.Envelope.Fields) != 1 || strings.Count(r.Envelope.Message, "must be a string") != 1 {
		t.Errorf("listed more than once: %s %+v", r.Envelope.Message, r.Envelope.Fields)
	}
}

// TestDeclaredDisablesOnlyTheKeywordRE2CannotCompileOnGoSDK: see
// validate's TestDeclaredDisablesOnlyTheKeywordRE2CannotCompile.
func TestDeclaredDisablesOnlyTheKeywordRE2CannotCompileOnGoSDK(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	log := gosdktest.NewLog(t)
	s := costlyGoSDK(t, &ran, log)
	s.Call("lookahead", map[string]any{"role": "admin", "limit": 9999}).ExpectError(gosdk.ValidationError).ExpectField("limit", "max")
	s.Call("lookahead", map[string]any{"role": "admin", "limit": 5}).ExpectSuccess()
	rec := log.Find("keyword", "pattern")
	if rec == nil || rec["tool"] != "lookahead" || rec["property"] != "/properties/role" {
		t.Fatalf("no warning naming the tool, property and keyword: %v", log.Records())
	}
}

// TestDeclaredChecksToolsAddedAtRunTimeFromTheirFirstCall: a tool added
// after the Middleware listed the tools is checked at its first call (on
// main it went unchecked for up to a second: the Middleware listed the
// tools again at most once a second).
func TestDeclaredChecksToolsAddedAtRunTimeFromTheirFirstCall(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	srv := openServer(&ran)
	s := gosdktest.Connect(t, srv)
	s.Call("files_open", map[string]any{"path": "a.txt"}).ExpectSuccess()
	srv.AddTool(&mcp.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":5}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
		})
	s.Call("late", map[string]any{"n": 99}).ExpectError(gosdk.ValidationError).ExpectField("n", "max")
	if n := ran.Load(); n != 1 {
		t.Fatalf("the handlers ran %d times, want once", n)
	}
	s.Call("late", map[string]any{"n": 5}).ExpectSuccess()
}
