package validate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/validate"
)

// fileArgsTyped is what a typed mcp-go handler binds: mcp.BindArguments
// decodes the raw arguments with encoding/json, which matches members to
// fields case-insensitively and keeps the last of a member sent twice.
type fileArgsTyped struct {
	Path  string `json:"path"`
	Mode  string `json:"mode"`
	Limit int64  `json:"limit"`
}

// typedServer serves files_open, whose declared schema is written with
// mcp.WithString and friends and whose handler is mcp-go's own typed
// handler: it echoes what it read, so a test sees what the handler acted
// on.
func typedServer(t testing.TB, ran *atomic.Int64) *server.MCPServer {
	s := newServer(t)
	s.Use(middleware.Default()...)
	s.AddTool(mcp.NewTool("files_open",
		mcp.WithString("path", mcp.Required(), mcp.Pattern(`^[a-z]+\.txt$`)),
		mcp.WithString("mode", mcp.Enum("read", "stat")),
		mcp.WithNumber("limit", mcp.Max(int64(9007199254740992)))),
		mcp.NewTypedToolHandler(func(_ context.Context, _ mcp.CallToolRequest, a fileArgsTyped) (*mcp.CallToolResult, error) {
			ran.Add(1)
			return mcp.NewToolResultText(fmt.Sprintf("%s|%s|%d", a.Path, a.Mode, a.Limit)), nil
		}))
	return s
}

// TestDeclaredRefusesMembersReadersDisagreeOn: a member a case-insensitive
// or first-wins reader would read differently from the check (a case
// variant of a declared property, a member sent twice, by escapes too) is
// refused with a validation_error naming it, and the typed handler never
// runs. On main, {"path":"notes.txt","PATH":"../../etc/passwd"} passed and
// the handler opened ../../etc/passwd.
func TestDeclaredRefusesMembersReadersDisagreeOn(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	s := typedServer(t, &ran)
	for _, c := range []struct{ args, field, rule string }{
		{`{"path":"notes.txt","PATH":"../../etc/passwd"}`, "PATH", "unknown"},
		{`{"PATH":"../../etc/passwd","path":"notes.txt"}`, "PATH", "unknown"},
		{`{"path":"notes.txt","Mode":"write"}`, "Mode", "unknown"},
		{`{"path":"../../etc/passwd","path":"notes.txt"}`, "path", "duplicate"},
		{`{"path":"../../etc/passwd","p\u0061th":"notes.txt"}`, "path", "duplicate"},
		{`{"path":"notes.txt","\u0050ATH":"../x"}`, "PATH", "unknown"},
		{`{"path":"notes.txt","x":{"a":1,"A":2}}`, "x.A", "duplicate"},
	} {
		env := mustInvalid(t, callRaw(t, s, "files_open", c.args))
		if f := field(t, env, c.field); f.Rule != c.rule {
			t.Errorf("%s: %s is %+v, want rule %s", c.args, c.field, f, c.rule)
		}
	}
	if n := ran.Load(); n != 0 {
		t.Fatalf("the handler ran %d times on arguments its reader reads otherwise", n)
	}
	if r := callRaw(t, s, "files_open", `{"path":"notes.txt","mode":"read"}`); r.text != "notes.txt|read|0" {
		t.Fatalf("a valid call: %s", r.raw)
	}
}

// TestDeclaredComparesIntegersExactlyOnMCPGo: mcp-go decodes arguments
// into float64, where 2^53+1 is 2^53; the check reads the raw arguments,
// as BindArguments does, so 9007199254740993 breaks a maximum of
// 9007199254740992. On main it passed and the handler read the exact,
// larger value.
func TestDeclaredComparesIntegersExactlyOnMCPGo(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	s := typedServer(t, &ran)
	env := mustInvalid(t, callRaw(t, s, "files_open", `{"path":"notes.txt","limit":9007199254740993}`))
	if f := field(t, env, "limit"); f.Rule != "max" {
		t.Fatalf("limit: %+v", f)
	}
	if n := ran.Load(); n != 0 {
		t.Fatalf("the handler ran %d times", n)
	}
	r := callRaw(t, s, "files_open", `{"path":"notes.txt","limit":9007199254740992}`)
	if r.text != "notes.txt||"+strconv.FormatInt(1<<53, 10) {
		t.Fatalf("the bound itself: %s", r.raw)
	}
}

// TestDeclaredAcceptedArgumentsReadAlike: on arguments the check accepts,
// encoding/json into the tool's Go type reads what the check read.
func TestDeclaredAcceptedArgumentsReadAlike(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	s := typedServer(t, &ran)
	r := callRaw(t, s, "files_open", `{"path":"abc.txt","mode":"stat","limit":5}`)
	var want fileArgsTyped
	if err := json.Unmarshal([]byte(`{"path":"abc.txt","mode":"stat","limit":5}`), &want); err != nil {
		t.Fatal(err)
	}
	if r.text != fmt.Sprintf("%s|%s|%d", want.Path, want.Mode, want.Limit) {
		t.Fatalf("got %s", r.raw)
	}
}

type claimedArgs struct {
	Query string `json:"query" validate:"required,min=3"`
	Limit int    `json:"limit,omitempty" validate:"omitempty,max=50"`
}

// TestDeclaredChecksPlainHandlersOfABinderSchema: a schema is left to a
// binder only for the tool whose handler is that binder. On main, once
// any Handler[T] existed, every tool declaring InputSchema[T] was skipped:
// a plain handler ran with limit 9999 against a declared maximum of 50.
func TestDeclaredChecksPlainHandlersOfABinderSchema(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.Use(middleware.Default()...)
	s.AddTool(mcp.NewTool("bound", validate.InputSchema[claimedArgs]()),
		validate.Handler(func(_ context.Context, _ mcp.CallToolRequest, a claimedArgs) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(a.Query), nil
		}))
	var ran atomic.Int64
	s.AddTool(mcp.NewTool("plain", validate.InputSchema[claimedArgs]()),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran.Add(1)
			return mcp.NewToolResultText(strconv.Itoa(req.GetInt("limit", 10))), nil
		})
	env := mustInvalid(t, callRaw(t, s, "plain", `{"query":"abc","limit":9999}`))
	if f := field(t, env, "limit"); f.Rule != "max" {
		t.Fatalf("limit: %+v", f)
	}
	if n := ran.Load(); n != 0 {
		t.Fatalf("the plain handler ran %d times", n)
	}
	// The bound tool is still its binder's: "5" is no integer to it.
	if f := field(t, mustInvalid(t, callRaw(t, s, "bound", `{"query":"abc","limit":"5"}`)), "limit"); f.Rule != "type" {
		t.Fatalf("bound: %+v", f)
	}
}

// costlySchema has a pattern after cheap keywords and a union whose
// branches fail alike; lookaheadSchema a pattern RE2 cannot compile
// beside a bound.
const (
	costlySchema = `{"type":"object","properties":{
	"key":{"type":"string","maxLength":64,"pattern":"[A-Za-z0-9_-]{20,40}x"},
	"body":{"type":"string","pattern":"^(?:[a-z]+\\.)*[a-z]+$"},
	"target":{"anyOf":[{"type":"string","format":"uri"},{"type":"string","pattern":"^/"}]}}}`
	lookaheadSchema = `{"type":"object","properties":{
	"role":{"type":"string","pattern":"^(?!admin).*$"},
	"limit":{"type":"integer","maximum":50}}}`
)

func costlyServer(t testing.TB, ran *atomic.Int64, log *middlewaretest.Log) *middlewaretest.Server {
	srv := newServer(t)
	srv.Use(middleware.Default(middleware.WithLogger(log.Logger()))...)
	for name, schema := range map[string]string{"costly": costlySchema, "lookahead": lookaheadSchema} {
		srv.AddTool(mcp.NewToolWithRawSchema(name, "d", []byte(schema)),
			func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				ran.Add(1)
				return mcp.NewToolResultText("ran"), nil
			})
	}
	return middlewaretest.FromServer(t, srv)
}

// TestDeclaredRunsCheapKeywordsFirst: a value maxLength refuses is not
// matched against its pattern (on main both were reported, the pattern
// having run over the whole value), and a call whose patterns would cost
// more than the budget is refused with rule size rather than run for
// seconds (on main the 1 MiB body below was matched and passed).
func TestDeclaredRunsCheapKeywordsFirst(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	s := costlyServer(t, &ran, middlewaretest.NewLog(t))
	r := s.CallTool("costly", map[string]any{"key": strings.Repeat("A", 1<<19)}).ExpectError(envelope.ValidationError).ExpectField("key", "max")
	if len(r.Envelope.Fields) != 1 {
		t.Errorf("the pattern ran on a value maxLength refuses: %+v", r.Envelope.Fields)
	}
	s.CallTool("costly", map[string]any{"body": strings.Repeat("a", 1<<19+1<<18)}).ExpectError(envelope.ValidationError).ExpectField("", "size")
	s.CallTool("costly", map[string]any{"body": strings.Repeat("a", 1<<10)}).ExpectSuccess()
	if n := ran.Load(); n != 1 {
		t.Fatalf("the handler ran %d times, want once", n)
	}
}

// TestDeclaredListsUnionFailuresOnce: an anyOf whose branches fail alike
// gives one field error (on main: "target must be a string, not a
// number; target must be a string, not a number").
func TestDeclaredListsUnionFailuresOnce(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	s := costlyServer(t, &ran, middlewaretest.NewLog(t))
	r := s.CallTool("costly", map[string]any{"target": 5}).ExpectError(envelope.ValidationError).ExpectField("target", "type")
	if len(r.Envelope.Fields) != 1 || strings.Count(r.Envelope.Message, "must be a string") != 1 {
		t.Errorf("listed more than once: %s %+v", r.Envelope.Message, r.Envelope.Fields)
	}
}

// TestDeclaredDisablesOnlyTheKeywordRE2CannotCompile: an ECMA lookahead
// turns off that pattern alone, with a warning naming the tool, the
// property and the keyword; the rest of the schema holds (on main the
// whole tool went unchecked, and limit 9999 ran).
func TestDeclaredDisablesOnlyTheKeywordRE2CannotCompile(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	log := middlewaretest.NewLog(t)
	s := costlyServer(t, &ran, log)
	s.CallTool("lookahead", map[string]any{"role": "admin", "limit": 9999}).ExpectError(envelope.ValidationError).ExpectField("limit", "max")
	s.CallTool("lookahead", map[string]any{"role": "admin", "limit": 5}).ExpectSuccess()
	rec := log.Find("keyword", "pattern")
	if rec == nil || rec["tool"] != "lookahead" || rec["property"] != "/properties/role" {
		t.Fatalf("no warning naming the tool, property and keyword: %v", log.Records())
	}
	// The warning says why in the pattern's own terms (it said "invalid or
	// unsupported Perl syntax", which a JSON Schema author never wrote).
	if why, _ := rec["error"].(string); !strings.Contains(why, `lookahead "(?!" cannot be checked`) {
		t.Errorf("the warning does not say why: %q", why)
	}
}
