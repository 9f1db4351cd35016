package limit_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	corelimit "github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
	"github.com/mcpguard/mcpguard/gosdk/limit"
)

// files is a filesystem server's state, as in the mcp-go front's tests:
// read_file fails with not_found until write_file made the file; "busy"
// fails retryably; "expired" fails authentication; "locked" is denied
// unless the call came with "Bearer admin-token"; get fails not_found.
type files struct {
	mu    sync.Mutex
	data  map[string]string
	reads atomic.Int64
}

type pathArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func (f *files) server(opts ...gosdk.Option) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "fs", Version: "0"}, nil)
	s.AddReceivingMiddleware(gosdk.Middleware(opts...))
	s.AddTool(&mcp.Tool{Name: "read_file", InputSchema: objectSchema}, f.read)
	s.AddTool(&mcp.Tool{Name: "write_file", InputSchema: objectSchema}, f.write)
	s.AddTool(&mcp.Tool{Name: "get", InputSchema: objectSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		f.reads.Add(1)
		return nil, gosdk.New(gosdk.NotFound, "no record")
	})
	return s
}

func (f *files) read(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	f.reads.Add(1)
	var a pathArgs
	_ = json.Unmarshal(req.Params.Arguments, &a)
	admin := req.Extra != nil && req.Extra.Header.Get("Authorization") == "Bearer admin-token"
	switch {
	case a.Path == "busy":
		return nil, gosdk.SetRetryable(gosdk.New(gosdk.NotFound, "the index is being rebuilt"), true)
	case a.Path == "expired":
		return nil, gosdk.New(gosdk.AuthenticationFailed, "the token expired")
	case a.Path == "locked" && !admin:
		return nil, gosdk.New(gosdk.AccessDenied, "locked needs the admin role")
	case a.Path == "locked":
		return textResult("the plans"), nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	content, found := f.data[a.Path]
	if !found {
		return nil, gosdk.AddNextSteps(gosdk.New(gosdk.NotFound, a.Path+" does not exist"), "List the directory first.")
	}
	return textResult(content), nil
}

func (f *files) write(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a pathArgs
	_ = json.Unmarshal(req.Params.Arguments, &a)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.data == nil {
		f.data = map[string]string{}
	}
	f.data[a.Path] = a.Content
	return textResult("written"), nil
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// The newcomer's scenario: polling for a file that appears.
func TestRepeatsReleasesTheReadOnceTheWriteSucceeded(t *testing.T) {
	t.Parallel()
	var f files
	c := gosdktest.Connect(t, f.server())
	read := map[string]any{"path": "later.txt"}
	for range 3 {
		c.Call("read_file", read).ExpectError(gosdk.NotFound)
	}
	c.Call("read_file", read).ExpectError(gosdk.ExecutionFailed).ExpectMessage("Not run")
	c.Call("write_file", map[string]any{"path": "later.txt", "content": "hello"}).ExpectSuccess()
	if got := c.Call("read_file", read).ExpectSuccess().Text(); got != "hello" {
		t.Fatalf("the read returned %q, want hello", got)
	}
	if n := f.reads.Load(); n != 4 {
		t.Fatalf("%d reads ran, want 4", n)
	}
}

// 90 identical failing calls in a tight loop run the handler at most 10
// times; the answer says the call did not run, when it may, and quotes
// the last real failure.
func TestRepeatsHoldsBackATightLoop(t *testing.T) {
	t.Parallel()
	var f files
	c := gosdktest.Connect(t, f.server())
	var last *gosdktest.Result
	for range 90 {
		last = c.Call("read_file", map[string]any{"path": "missing.txt"})
	}
	if n := f.reads.Load(); n < limit.DefaultRepeatFailures || n > 10 {
		t.Fatalf("the handler ran %d times for 90 identical failing calls, want 3 to 10", n)
	}
	last.ExpectError(gosdk.ExecutionFailed).
		ExpectMessage("Not run: this call of read_file, with these arguments, already failed 3 times").
		ExpectMessage("not_found: missing.txt does not exist").
		ExpectNextStep("List the directory first.")
	if e := last.Envelope; !e.Retryable || e.RetryAfterMS <= 0 || e.RetryAfterMS > 1000 {
		t.Fatalf("retryable %v after %d ms, want retryable within a second: %s", e.Retryable, e.RetryAfterMS, last.Raw)
	}
}

func TestRepeatsNeverHoldsBackARetryableOrAuthenticationFailure(t *testing.T) {
	t.Parallel()
	var f files
	c := gosdktest.Connect(t, f.server())
	for range 10 {
		c.Call("read_file", map[string]any{"path": "busy"}).ExpectError(gosdk.NotFound)
		c.Call("read_file", map[string]any{"path": "expired"}).ExpectError(gosdk.AuthenticationFailed)
	}
	if n := f.reads.Load(); n != 20 {
		t.Fatalf("%d of 20 calls ran", n)
	}
}

// The same arguments spelled otherwise are one call; two integers past
// 2^53 are two.
func TestRepeatsReadsTheSameArgumentsAlike(t *testing.T) {
	t.Parallel()
	var f files
	c := gosdktest.Connect(t, f.server())
	for _, args := range []string{
		`{"path":"a.txt","x":1}`, `{ "x" : 1.0 , "path" : "a.txt" }`, `{"p\u0061th":"\u0061.txt","x":10e-1}`, `{"path":"a.txt","x":1}`,
	} {
		c.Call("read_file", json.RawMessage(args))
	}
	if n := f.reads.Load(); n != 3 {
		t.Fatalf("four spellings of one call ran %d times, want 3", n)
	}
	for _, id := range []string{"9007199254740993", "9007199254740992", "9007199254740993", "9007199254740992"} {
		c.Call("get", json.RawMessage(`{"id":`+id+`}`)).ExpectError(gosdk.NotFound)
	}
	if n := f.reads.Load(); n != 7 {
		t.Fatalf("%d runs, want 7: two calls past 2^53, each ran", n)
	}
}

// Two connections are two callers; WithRepeats configures or removes the
// guard.
func TestRepeatsScopesAndConfiguration(t *testing.T) {
	t.Parallel()
	var f files
	srv := f.server(gosdk.WithRepeats(limit.Repeats(2, time.Hour, limit.WithRepeatBackoff(time.Hour, time.Hour))))
	a, b := gosdktest.Connect(t, srv), gosdktest.Connect(t, srv)
	for range 5 {
		a.Call("read_file", map[string]any{"path": "x"})
	}
	a.Call("read_file", map[string]any{"path": "x"}).ExpectError(gosdk.ExecutionFailed)
	b.Call("read_file", map[string]any{"path": "x"}).ExpectError(gosdk.NotFound).ExpectMessage("x does not exist")
	if n := f.reads.Load(); n != 3 {
		t.Fatalf("%d runs, want 2 for a and 1 for b", n)
	}
	var g files
	off := gosdktest.Connect(t, g.server(gosdk.WithRepeats(nil)))
	for range 5 {
		off.Call("read_file", map[string]any{"path": "x"}).ExpectError(gosdk.NotFound)
	}
	if n := g.reads.Load(); n != 5 {
		t.Fatalf("off: %d runs, want 5", n)
	}
}

// Three requestStates that do not verify, then the fresh start: it runs.
func TestRepeatsLetsTheFreshStartARefusedStateRecommendsRun(t *testing.T) {
	t.Parallel()
	var f files
	c := gosdktest.Connect(t, f.server())
	cs := c.ClientSession()
	for range 3 {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "a"}, RequestState: "forged"})
		if err != nil || !res.IsError {
			t.Fatalf("a forged state: %v %+v", err, res)
		}
	}
	c.Call("write_file", map[string]any{"path": "a"}).ExpectSuccess()
}

// Over streamable HTTP: sessions are callers; a TokenInfo user is the
// caller in any session; new credentials start over; a stateless server
// never holds back.
func TestRepeatsOverHTTPScopesCountsToTheCaller(t *testing.T) {
	t.Parallel()
	var f files
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		user, _, found := strings.Cut(token, "-")
		if !found {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: user, Expiration: time.Now().Add(time.Hour)}, nil
	}
	srv := f.server()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	plain := httptest.NewServer(h)
	t.Cleanup(plain.Close)
	authed := httptest.NewServer(auth.RequireBearerToken(verify, nil)(h))
	t.Cleanup(authed.Close)

	a, b := dial(t, plain.URL, nil), dial(t, plain.URL, nil)
	for range 3 {
		a.Call("read_file", map[string]any{"path": "locked"}).ExpectError(gosdk.AccessDenied)
	}
	a.Call("read_file", map[string]any{"path": "locked"}).ExpectError(gosdk.ExecutionFailed)
	b.Call("read_file", map[string]any{"path": "locked"}).ExpectError(gosdk.AccessDenied)

	alice1 := dial(t, authed.URL, bearer("alice-1"))
	for range 3 {
		alice1.Call("read_file", map[string]any{"path": "locked"}).ExpectError(gosdk.AccessDenied)
	}
	dial(t, authed.URL, bearer("alice-1")).Call("read_file", map[string]any{"path": "locked"}).ExpectError(gosdk.ExecutionFailed)
	dial(t, authed.URL, bearer("bob-1")).Call("read_file", map[string]any{"path": "locked"}).ExpectError(gosdk.AccessDenied)
	dial(t, authed.URL, bearer("admin-token")).Call("read_file", map[string]any{"path": "locked"}).ExpectSuccess()
	dial(t, authed.URL, bearer("alice-2")).Call("read_file", map[string]any{"path": "locked"}).ExpectError(gosdk.AccessDenied) // new credentials: it runs

	var g files
	st := g.server()
	stateless := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return st }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(stateless.Close)
	c := dial(t, stateless.URL, nil)
	for range 6 {
		c.Call("read_file", map[string]any{"path": "locked"}).ExpectError(gosdk.AccessDenied)
	}
	if n := g.reads.Load(); n != 6 {
		t.Fatalf("a stateless server held back: %d of 6 ran", n)
	}
}

func TestRepeatsPanicsOnBadConfiguration(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]func(){
		"n 0":       func() { limit.Repeats(0, time.Hour) },
		"window 0":  func() { limit.Repeats(1, 0) },
		"nil store": func() { limit.WithRepeatStore(nil) },
		"nil guard": func() { gosdk.NewRepeats(nil, gosdk.CallerKey) },
		"backoff 0": func() { limit.WithRepeatBackoff(0, time.Second) },
		"max below": func() { corelimit.NewRepeats(1, time.Hour, nil, 1, 0).WithBackoff(time.Second, time.Millisecond) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
