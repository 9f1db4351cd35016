package middlewaretest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/redact"
)

// recorder captures the failures the harness reports, to prove its checks
// can fail. Fatal is not captured: no test here provokes one.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) joined() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errs, "\n")
}

func failing(err error) server.ToolHandlerFunc {
	return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, err }
}

func text(s string) server.ToolHandlerFunc {
	return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(s), nil
	}
}

var tool = mcp.NewTool("t_get", mcp.WithString("id"))

func TestPlainMCPGoAnswersAnErrorWithJSONRPCError(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	res := middlewaretest.New(rec, tool, failing(errors.New("boom"))).Call(nil)
	if res.ProtocolError == nil {
		t.Fatalf("plain mcp-go should answer (nil, err) with a JSON-RPC error, got %s", res.Raw)
	}
	res.ExpectProtocolError(mcp.INTERNAL_ERROR)
	if got := rec.joined(); got != "" {
		t.Fatalf("ExpectProtocolError reported %q", got)
	}
	res.ExpectError(envelope.InternalError)
	if got := rec.joined(); !strings.Contains(got, "JSON-RPC error") {
		t.Fatalf("ExpectError on a protocol error should fail, reported %q", got)
	}
}

func TestExpectErrorChecksTheCode(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	srv := middlewaretest.New(rec, tool, failing(fmt.Errorf("card: %w", envelope.ErrNotFound)), middleware.Default()...)
	srv.Call(map[string]any{"id": "x"}).ExpectError(envelope.NotFound).ExpectMessage("card").ExpectNextStep("Verify the identifier").NoLeak()
	if got := rec.joined(); got != "" {
		t.Fatalf("correct expectations reported %q", got)
	}
	srv.Call(nil).ExpectError(envelope.AccessDenied).ExpectMessage("nope").ExpectNextStep("nope").ExpectSuccess()
	got := rec.joined()
	for _, want := range []string{`error_type = "not_found", want "access_denied"`, `does not contain "nope"`, `no next step contains "nope"`, "want success"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing failure %q in\n%s", want, got)
		}
	}
}

func TestExpectErrorRejectsSuccessAndBareErrorResults(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	middlewaretest.New(rec, tool, text("fine")).Call(nil).ExpectError(envelope.NotFound)
	bare := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("Error: bad"), nil
	}
	middlewaretest.New(rec, tool, bare).Call(nil).ExpectError(envelope.ExecutionFailed)
	got := rec.joined()
	if !strings.Contains(got, "got a successful result") || !strings.Contains(got, "without one") {
		t.Fatalf("want both failures, got %q", got)
	}
	// The same bare result behind the chain becomes an envelope.
	rec2 := &recorder{TB: t}
	middlewaretest.New(rec2, tool, bare, middleware.Default()...).Call(nil).ExpectError(envelope.ExecutionFailed).ExpectMessage("Error: bad")
	if got := rec2.joined(); got != "" {
		t.Fatal(got)
	}
}

func TestNoLeakFindsWhatMustNotReachAClient(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"stack":   "goroutine 7 [running]:\nmain.f()\n\t/home/dev/app/main.go:42 +0x1d",
		"frame":   "failed at handler.go:17",
		"path":    "open /var/lib/app/secret.key: permission denied",
		"winpath": `open C:\Users\dev\key.pem: denied`,
		"panic":   "panic: runtime error: index out of range [3] with length 2",
		"secret":  `the token is s3cr"et`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{TB: t}
			// Success results are not redacted by default: the leak reaches
			// the wire and NoLeak must see it.
			middlewaretest.New(rec, tool, text(body), middleware.Default()...).Call(nil).NoLeak(`s3cr"et`)
			if got := rec.joined(); !strings.Contains(got, "leaks") {
				t.Fatalf("NoLeak missed %q", body)
			}
		})
	}
}

func TestNoLeakPassesARedactedPanicAndDSN(t *testing.T) {
	t.Parallel()
	panics := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("postgres://app:hunter2@db/x at /srv/app/db.go:12")
	}
	middlewaretest.New(t, tool, panics, middleware.Default()...).Call(nil).
		ExpectError(envelope.InternalError).NoLeak("hunter2")
	middlewaretest.New(t, tool, failing(envelope.Wrap(envelope.ExecutionFailed,
		errors.New("dial postgres://app:hunter2@db/x: refused"))), middleware.Default()...).Call(nil).
		ExpectError(envelope.ExecutionFailed).ExpectMessage("refused").NoLeak("hunter2")
}

func TestLeaksIsQuietOnCleanEnvelopes(t *testing.T) {
	t.Parallel()
	clean := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"success\":false,\"error_type\":\"not_found\",\"tool\":\"shop_get\",\"message\":\"product p-1: not found\",\"next_steps\":[\"Call shop_search, then tools/list\"]}"}],"isError":true}}`
	if got := middlewaretest.Leaks([]byte(clean), "hunter2", ""); got != nil {
		t.Fatalf("Leaks(clean) = %q", got)
	}
}

func TestFieldsAndStructuredContent(t *testing.T) {
	t.Parallel()
	h := failing(envelope.AddFields(envelope.New(envelope.ValidationError, "bad limit"),
		envelope.FieldError{Field: "limit", Rule: "max", Param: "50", Message: "limit must be at most 50"}))
	res := middlewaretest.New(t, tool, h, middleware.Default()...).Call(map[string]any{"limit": 9999})
	res.ExpectError(envelope.ValidationError).ExpectField("limit", "max")
	if res.Field("limit").Param != "50" || res.StructuredContent() == nil {
		t.Fatalf("field or structuredContent missing: %s", res.Raw)
	}
	rec := &recorder{TB: t}
	middlewaretest.New(rec, tool, h, middleware.Default()...).Call(nil).ExpectField("limit", "min").ExpectField("category", "")
	got := rec.joined()
	if !strings.Contains(got, `failed rule "max", want "min"`) || !strings.Contains(got, `no field error for "category"`) {
		t.Fatalf("ExpectField should fail twice, reported %q", got)
	}
}

type out struct {
	Total int `json:"total"`
}

func TestOutputSchemaToolGetsNoStructuredEnvelope(t *testing.T) {
	t.Parallel()
	withOut := mcp.NewTool("t_count", mcp.WithOutputSchema[out]())
	res := middlewaretest.New(t, withOut, failing(envelope.ErrNotFound), middleware.Default()...).Call(nil)
	res.ExpectError(envelope.NotFound)
	if sc := res.StructuredContent(); sc != nil {
		t.Fatalf("a tool with an output schema must not get structuredContent on error, got %s", sc)
	}
}

func TestRawArgumentsAreSentVerbatim(t *testing.T) {
	t.Parallel()
	var got json.RawMessage
	var mu sync.Mutex
	h := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		mu.Lock()
		defer mu.Unlock()
		b, _ := json.Marshal(req.Params.Arguments)
		got = b
		return mcp.NewToolResultText("ok"), nil
	}
	srv := middlewaretest.New(t, tool, h, middleware.Default()...)
	srv.Call(json.RawMessage(`{"limit":"ten","nested":{"a":[1,2]}}`)).ExpectSuccess()
	mu.Lock()
	defer mu.Unlock()
	if string(got) != `{"limit":"ten","nested":{"a":[1,2]}}` {
		t.Fatalf("handler saw %s", got)
	}
}

func TestUnknownToolStaysAProtocolError(t *testing.T) {
	t.Parallel()
	srv := middlewaretest.New(t, tool, text("x"), middleware.Default()...)
	srv.CallTool("t_nope", nil).ExpectProtocolError(mcp.INVALID_PARAMS)
}

func TestFromServerDrivesEveryTool(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("x", "1", server.WithToolCapabilities(false))
	s.Use(append(middleware.Default(), hints.Middleware(hints.For("a_ok", hints.OnSuccess(hints.Call("a_fail", "to see a refusal")))))...)
	s.AddTool(mcp.NewTool("a_ok"), text("fine"))
	s.AddTool(mcp.NewTool("a_fail"), failing(envelope.New(envelope.AccessDenied, "not yours")))
	srv := middlewaretest.FromServer(t, s)
	// The step comes from the hint: the tool's own output ("fine") cannot
	// satisfy it.
	srv.CallTool("a_ok", nil).ExpectSuccess().ExpectNextStep("Call a_fail to see a refusal")
	srv.CallTool("a_fail", nil).ExpectError(envelope.AccessDenied).ExpectNextStep("Do not retry")
	if n := len(srv.ListTools()); n != 2 {
		t.Fatalf("ListTools returned %d tools", n)
	}
	if srv.MCPServer() != s {
		t.Fatal("MCPServer is not the server given")
	}
}

func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	h := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		switch req.GetInt("n", 0) % 3 {
		case 0:
			return mcp.NewToolResultText("ok"), nil
		case 1:
			return nil, envelope.ErrNotFound
		}
		panic("boom at /srv/x.go:1")
	}
	srv := middlewaretest.New(t, mcp.NewTool("t_mixed", mcp.WithNumber("n")), h, middleware.Default()...)
	var wg sync.WaitGroup
	for i := range 300 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := srv.Call(map[string]any{"n": i}).NoLeak()
			switch i % 3 {
			case 0:
				res.ExpectSuccess()
			case 1:
				res.ExpectError(envelope.NotFound)
			default:
				res.ExpectError(envelope.InternalError)
			}
		}()
	}
	wg.Wait()
}

// A handler's own text envelope that only looks right must fail the strict
// checks: unknown members, a missing next_steps array, a structuredContent
// that says something else than the text.
func TestExpectErrorDecodesStrictly(t *testing.T) {
	t.Parallel()
	const good = `{"success":false,"error_type":"not_found","tool":"t_get","message":"m","next_steps":["s"],"retryable":false}`
	cases := map[string]struct {
		text       string
		structured any
		want       string
	}{
		"unknown member":     {`{"success":false,"error_type":"not_found","tool":"t_get","message":"m","next_steps":["s"],"retryable":false,"hint":"x"}`, nil, "does not decode strictly"},
		"no next_steps":      {`{"success":false,"error_type":"not_found","tool":"t_get","message":"m","retryable":false}`, nil, "no next_steps array"},
		"null next_steps":    {`{"success":false,"error_type":"not_found","tool":"t_get","message":"m","next_steps":null,"retryable":false}`, nil, "no next_steps array"},
		"no retryable":       {`{"success":false,"error_type":"not_found","tool":"t_get","message":"m","next_steps":["s"]}`, nil, "lacks a member"},
		"structured differs": {good, map[string]any{"success": false, "error_type": "not_found", "tool": "t_get", "message": "other", "next_steps": []string{"s"}, "retryable": false}, "differs from the text envelope"},
		"structured extra":   {good, map[string]any{"success": false, "error_type": "not_found", "tool": "t_get", "message": "m", "next_steps": []string{"s"}, "retryable": false, "x": 1}, "structuredContent"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				res := mcp.NewToolResultError(c.text)
				res.StructuredContent = c.structured
				return res, nil
			}
			rec := &recorder{TB: t}
			middlewaretest.New(rec, tool, h).Call(nil).ExpectError(envelope.NotFound)
			if got := rec.joined(); !strings.Contains(got, c.want) {
				t.Fatalf("want a failure containing %q, got %q", c.want, got)
			}
		})
	}
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError(good), nil
	}
	rec := &recorder{TB: t}
	middlewaretest.New(rec, tool, ok).Call(nil).ExpectError(envelope.NotFound)
	if got := rec.joined(); got != "" {
		t.Fatalf("a valid envelope must pass: %s", got)
	}
}

func TestLogTiesTheIncidentToItsDetail(t *testing.T) {
	t.Parallel()
	log := middlewaretest.NewLog(t)
	panicky := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var m map[string]int
		//lint:ignore SA5000 the nil map write is the panic under test
		m["x"] = 1
		return nil, nil
	}
	srv := middlewaretest.New(t, tool, panicky, middleware.Default(middleware.WithLogger(log.Logger()))...)
	r := srv.Call(nil).ExpectError(envelope.InternalError).NoLeak()
	rec := log.ExpectIncident(r, "assignment to entry in nil map", "stack")
	if rec == nil || rec["tool"] != "t_get" {
		t.Fatalf("record %v", rec)
	}

	// The check fails for an incident nobody logged and for a detail that
	// is not there.
	rec2 := &recorder{TB: t}
	other := middlewaretest.NewLog(rec2)
	other.ExpectIncident(r, "x")
	log2 := middlewaretest.NewLog(rec2)
	srv2 := middlewaretest.New(t, tool, panicky, middleware.Default(middleware.WithLogger(log2.Logger()))...)
	log2.ExpectIncident(srv2.Call(nil), "no such detail")
	if got := rec2.joined(); !strings.Contains(got, "no log record for incident") || !strings.Contains(got, `does not contain "no such detail"`) {
		t.Fatalf("want both failures, got %q", got)
	}
}

// A secret with a quote or a backslash is escaped once per JSON layer: an
// envelope's text is JSON inside a JSON string, so on the wire it is
// escaped twice, and a search for the once-escaped form misses it.
func TestLeaksFindsSecretsEscapedTwice(t *testing.T) {
	t.Parallel()
	for _, secret := range []string{`pa"ss`, `pa\ss`, `p\"w`, "tab\there"} {
		inner, _ := json.Marshal(map[string]string{"message": "login with " + secret + " failed"})
		body := string(inner)
		srv := middlewaretest.New(t, tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(body), nil
		})
		r := srv.Call(nil)
		if got := middlewaretest.Leaks(r.Raw, secret); len(got) == 0 {
			t.Errorf("Leaks missed %q in %s", secret, r.Raw)
		}
	}
}

func TestLeaksUsesTheRedactorsPatterns(t *testing.T) {
	t.Parallel()
	for _, leaked := range []string{
		`DB_PASSWORD=hunter2`, `{"dbPassword": 12345}`, `dial root:pw@tcp(db:3306)/x`, `open \\srv\share\x.txt`,
		`C:/Users/bob/x`, `file:///etc/shop.yaml`, `/home/ålice/x`,
	} {
		raw, _ := json.Marshal(map[string]any{"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": leaked}}}})
		if got := middlewaretest.Leaks(raw); len(got) == 0 {
			t.Errorf("Leaks missed %s", raw)
		}
	}
	quiet, _ := json.Marshal(map[string]any{"content": []any{
		map[string]any{"type": "image", "data": "/9j/4AAQSkZJRg==", "mimeType": "image/jpeg"},
		map[string]any{"type": "text", "text": `password=[REDACTED] at [path]; dial postgres://app:[REDACTED]@db/x; token_count=5`},
	}})
	if got := middlewaretest.Leaks(quiet); got != nil {
		t.Errorf("Leaks(%s) = %q", quiet, got)
	}
}

// Issue 10: a path the agent sent comes back (the redactor keeps it), and
// NoLeak agrees it is no leak; a path it did not send still is one.
func TestNoLeakAcceptsWhatTheCallSent(t *testing.T) {
	t.Parallel()
	echo := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("open " + req.GetString("path", "") + ": not found"), nil
	}
	srv := middlewaretest.New(t, tool, echo, redact.Middleware())
	r := srv.Call(map[string]any{"path": "/home/alice/notes/todo.md"}).NoLeak()
	if !strings.Contains(r.Text(), "/home/alice/notes/todo.md") {
		t.Fatalf("the sent path did not come back: %s", r.Raw)
	}

	rec := &recorder{TB: t}
	plain := middlewaretest.New(rec, tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("open /home/alice/other.md: not found"), nil
	})
	plain.Call(map[string]any{"path": "/home/alice/notes/todo.md"}).NoLeak()
	if got := rec.joined(); !strings.Contains(got, "absolute file path") {
		t.Fatalf("NoLeak missed a path the call never sent: %q", got)
	}
}
