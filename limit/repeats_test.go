package limit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
)

// files is a filesystem server's state: read_file fails with not_found
// until write_file made the file; get_file_info answers either way;
// "busy" fails retryably; "locked" is denied unless the call came with
// the token "Bearer admin"; "expired" fails authentication.
type files struct {
	mu    sync.Mutex
	data  map[string]string
	reads atomic.Int64
}

func (f *files) server(opts ...middleware.Option) *server.MCPServer {
	s := server.NewMCPServer("fs", "1.0.0")
	s.Use(middleware.Default(opts...)...)
	s.AddTool(mcp.NewTool("read_file", mcp.WithString("path", mcp.Required())), f.read)
	s.AddTool(mcp.NewTool("write_file", mcp.WithString("path", mcp.Required()), mcp.WithString("content")), f.write)
	s.AddTool(mcp.NewTool("get_file_info", mcp.WithString("path", mcp.Required())), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("info"), nil
	})
	s.AddTool(mcp.NewTool("get", mcp.WithNumber("id")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		f.reads.Add(1)
		return nil, envelope.New(envelope.NotFound, "no record")
	})
	return s
}

func (f *files) read(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	f.reads.Add(1)
	path := req.GetString("path", "")
	switch {
	case path == "busy":
		return nil, envelope.SetRetryable(envelope.New(envelope.NotFound, "the index is being rebuilt"), true)
	case path == "expired":
		return nil, envelope.New(envelope.AuthenticationFailed, "the token expired")
	case path == "locked" && req.Header.Get("Authorization") != "Bearer admin":
		return nil, envelope.New(envelope.AccessDenied, "locked needs the admin role")
	case path == "locked":
		return mcp.NewToolResultText("the plans"), nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	content, ok := f.data[path]
	if !ok {
		return nil, envelope.AddNextSteps(envelope.New(envelope.NotFound, path+" does not exist"), "List the directory first.")
	}
	return mcp.NewToolResultText(content), nil
}

func (f *files) write(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.data == nil {
		f.data = map[string]string{}
	}
	f.data[req.GetString("path", "")] = req.GetString("content", "")
	return mcp.NewToolResultText("written"), nil
}

// session is a context for HandleMessage in the MCP session id, as a
// transport gives a handler.
func session(s *server.MCPServer, id string) context.Context {
	return s.WithContext(context.Background(), server.NewInProcessSession(id, nil))
}

// send sends one tools/call with params as raw JSON and returns the
// result the client got.
func sendRaw(t *testing.T, ctx context.Context, s *server.MCPServer, params string) *mcp.CallToolResult {
	t.Helper()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":%s}`, params)
	resp, ok := s.HandleMessage(ctx, json.RawMessage(msg)).(mcp.JSONRPCResponse)
	require.True(t, ok, "a JSON-RPC result, not an error")
	return resp.Result.(*mcp.CallToolResult)
}

// failure is the envelope of res, nil for a success.
func failure(t *testing.T, res *mcp.CallToolResult) *envelope.Envelope {
	t.Helper()
	if !res.IsError {
		return nil
	}
	env, ok := envelope.FromResult(res)
	require.True(t, ok, "every failure is an envelope")
	return env
}

func text(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	tc, _ := res.Content[0].(mcp.TextContent)
	return tc.Text
}

// The newcomer's scenario: an agent polls for a file that does not exist
// yet; once written, the read runs and returns the content.
func TestRepeatsReleasesTheReadOnceTheWriteSucceeded(t *testing.T) {
	t.Parallel()
	var f files
	s := f.server()
	ctx := session(s, "s1")
	read := `{"name":"read_file","arguments":{"path":"later.txt"}}`
	for range 3 {
		require.Equal(t, envelope.NotFound, failure(t, sendRaw(t, ctx, s, read)).ErrorType)
	}
	held := failure(t, sendRaw(t, ctx, s, read))
	require.NotNil(t, held)
	assert.EqualValues(t, 3, f.reads.Load(), "the 4th identical read is held back")
	assert.Nil(t, failure(t, sendRaw(t, ctx, s, `{"name":"write_file","arguments":{"path":"later.txt","content":"hello"}}`)))
	res := sendRaw(t, ctx, s, read)
	require.Nil(t, failure(t, res), "the read runs once the write succeeded")
	assert.Equal(t, "hello", text(res))
	assert.EqualValues(t, 4, f.reads.Load())
}

// An agent that repeats a failing call 90 times in a tight loop runs the
// handler at most 10 times; what it gets instead says the call did not
// run, when it may run again, and quotes the last real failure.
func TestRepeatsHoldsBackATightLoop(t *testing.T) {
	t.Parallel()
	var f files
	s := f.server()
	ctx := session(s, "s1")
	var last *envelope.Envelope
	for i := range 90 {
		last = failure(t, sendRaw(t, ctx, s, `{"name":"read_file","arguments":{"path":"missing.txt"}}`))
		require.NotNil(t, last, "call %d", i)
	}
	assert.LessOrEqual(t, f.reads.Load(), int64(10))
	assert.GreaterOrEqual(t, f.reads.Load(), int64(limit.DefaultRepeatFailures))
	assert.Equal(t, envelope.ExecutionFailed, last.ErrorType, "the refusal is not the failure: it did not run")
	assert.True(t, last.Retryable)
	assert.Positive(t, last.RetryAfterMS)
	assert.LessOrEqual(t, last.RetryAfterMS, int64(1000))
	assert.Contains(t, last.Message, "Not run: this call of read_file, with these arguments, already failed 3 times")
	assert.Contains(t, last.Message, "not_found: missing.txt does not exist", "the last real failure, quoted")
	assert.Contains(t, last.NextSteps, "List the directory first.", "the failure's own next step")
}

func TestRepeatsNeverHoldsBackARetryableOrAuthenticationFailure(t *testing.T) {
	t.Parallel()
	var f files
	s := f.server()
	ctx := session(s, "s1")
	for range 10 {
		assert.True(t, failure(t, sendRaw(t, ctx, s, `{"name":"read_file","arguments":{"path":"busy"}}`)).Retryable)
		assert.Equal(t, envelope.AuthenticationFailed, failure(t, sendRaw(t, ctx, s, `{"name":"read_file","arguments":{"path":"expired"}}`)).ErrorType)
	}
	assert.EqualValues(t, 20, f.reads.Load(), "every call ran")
}

// The same arguments spelled otherwise are the same call; two integers
// past 2^53 are two.
func TestRepeatsReadsTheSameArgumentsAlike(t *testing.T) {
	t.Parallel()
	var f files
	s := f.server()
	ctx := session(s, "s1")
	for _, p := range []string{
		`{"name":"read_file","arguments":{"path":"a.txt","x":1}}`,
		`{"name":"read_file","arguments":{ "x" : 1.0 , "path" : "a.txt" }}`,
		`{"name":"read_file","arguments":{"p\u0061th":"\u0061.txt","x":10e-1}}`,
		`{"name":"read_file","arguments":{"path":"a.txt","x":1}}`,
	} {
		sendRaw(t, ctx, s, p)
	}
	assert.EqualValues(t, 3, f.reads.Load(), "four spellings of one call: the 4th held back")

	for _, id := range []string{"9007199254740993", "9007199254740992", "9007199254740993", "9007199254740992"} {
		sendRaw(t, ctx, s, `{"name":"get","arguments":{"id":`+id+`}}`)
	}
	assert.EqualValues(t, 7, f.reads.Load(), "two calls, two failures each: every one ran")
}

func TestRepeatsCanBeConfiguredOrTurnedOff(t *testing.T) {
	t.Parallel()
	var f files
	s := f.server(middleware.WithRepeats(limit.Repeats(1, time.Hour, limit.WithRepeatBackoff(time.Hour, time.Hour))))
	ctx := session(s, "s1")
	for range 5 {
		sendRaw(t, ctx, s, `{"name":"read_file","arguments":{"path":"x"}}`)
	}
	assert.EqualValues(t, 1, f.reads.Load(), "n 1: after one failure")
	assert.InDelta(t, int64(time.Hour/time.Millisecond), failure(t, sendRaw(t, ctx, s, `{"name":"read_file","arguments":{"path":"x"}}`)).RetryAfterMS, 1000,
		"the configured backoff, less the time since the failure")

	var g files
	off := g.server(middleware.WithRepeats(nil))
	for range 5 {
		sendRaw(t, session(off, "s1"), off, `{"name":"read_file","arguments":{"path":"x"}}`)
	}
	assert.EqualValues(t, 5, g.reads.Load(), "off")
	assert.PanicsWithValue(t, "limit: Repeats(0, 1h0m0s): need at least 1 failure and a positive window", func() { limit.Repeats(0, time.Hour) })
	assert.Panics(t, func() { limit.Repeats(1, 0) })
	assert.Panics(t, func() { limit.WithRepeatStore(nil) })
	assert.Panics(t, func() { limit.WithRepeatBackoff(0, time.Second) })
}

// A call with no caller the server can tell (no principal, no session) is
// never held back.
func TestRepeatsNeverHoldsBackAnAnonymousCaller(t *testing.T) {
	t.Parallel()
	var f files
	s := f.server()
	for range 10 {
		sendRaw(t, context.Background(), s, `{"name":"read_file","arguments":{"path":"x"}}`)
	}
	assert.EqualValues(t, 10, f.reads.Load())
}

// Three requestStates that do not verify, answered "start over", then
// the fresh start: it runs.
func TestRepeatsLetsTheFreshStartARefusedStateRecommendsRun(t *testing.T) {
	t.Parallel()
	var f files
	s := f.server()
	ctx := session(s, "s1")
	for range 3 {
		env := failure(t, sendRaw(t, ctx, s, `{"name":"write_file","arguments":{"path":"a","content":"b"},"requestState":"forged"}`))
		require.NotNil(t, env)
		require.Equal(t, envelope.ValidationError, env.ErrorType)
	}
	assert.Nil(t, failure(t, sendRaw(t, ctx, s, `{"name":"write_file","arguments":{"path":"a","content":"b"}}`)), "the fresh start runs")
}

// Over streamable HTTP, one session's failures never change another
// session's answer; with a principal, the principal is the caller; new
// credentials start over; a stateless server never holds back.
func TestRepeatsOverHTTPScopesCountsToTheCaller(t *testing.T) {
	t.Parallel()
	var f files
	s := f.server()
	principal := server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
		return limit.ContextWithPrincipal(ctx, r.Header.Get("X-User"))
	})
	ts := servertest.NewTestStreamableHTTPServer(s, principal)
	t.Cleanup(ts.Close)
	url := ts.URL + "/mcp"
	call := func(session, user, auth, path string) *envelope.Envelope {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":%q}}}`, path)
		return httpFailure(t, url, session, body, map[string]string{"X-User": user, "Authorization": auth})
	}
	a, _ := post(t, url, "", initBody)
	b, _ := post(t, url, "", initBody)
	for range 3 {
		require.Equal(t, envelope.AccessDenied, call(a, "", "", "locked").ErrorType)
	}
	require.Equal(t, envelope.ExecutionFailed, call(a, "", "", "locked").ErrorType, "session a is held back")
	assert.Equal(t, envelope.AccessDenied, call(b, "", "", "locked").ErrorType, "session b's identical call runs")
	assert.Nil(t, call(a, "", "Bearer admin", "locked"), "new credentials start over")

	for range 3 {
		call(a, "alice", "", "locked")
	}
	assert.Equal(t, envelope.ExecutionFailed, call(b, "alice", "", "locked").ErrorType, "the principal is the caller, in any session")
	assert.Equal(t, envelope.AccessDenied, call(a, "bob", "", "locked").ErrorType, "another principal runs")

	var g files
	stateless := servertest.NewTestStreamableHTTPServer(g.server(), server.WithStateLess(true))
	t.Cleanup(stateless.Close)
	for range 6 {
		env := httpFailure(t, stateless.URL+"/mcp", "", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"locked"}}}`, nil)
		require.Equal(t, envelope.AccessDenied, env.ErrorType)
	}
	assert.EqualValues(t, 6, g.reads.Load(), "a stateless server without a principal never holds back")
}

// httpFailure posts body and returns the envelope of the tools/call
// result in the answer, nil for a success.
func httpFailure(t *testing.T, url, session, body string, headers map[string]string) *envelope.Envelope {
	t.Helper()
	raw := postWith(t, url, session, body, headers)
	if i := strings.Index(raw, "data: "); i >= 0 {
		raw = strings.TrimSpace(raw[i+len("data: "):])
	}
	var resp struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(raw), &resp), raw)
	if !resp.Result.IsError {
		return nil
	}
	var env envelope.Envelope
	require.NoError(t, json.Unmarshal([]byte(resp.Result.Content[0].Text), &env))
	return &env
}
