package proxy_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
	"github.com/mcpguard/mcpguard/core/envelope"
)

func TestSuccessPassesThroughByteForByte(t *testing.T) {
	s := start(t)
	s.next++
	s.send(`{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
	got := string(s.read())
	want := `{"jsonrpc":"2.0","id":"a-1","result":{"content":[{"type":"text","text":"hi"}],"isError":false}}`
	if got != want {
		t.Fatalf("got  %s\nwant %s (the child's bytes)", got, want)
	}
	s.send(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	if got := string(s.read()); got != `{"jsonrpc":"2.0","id":7,"result":{}}` {
		t.Fatalf("ping: got %s", got)
	}
}

func TestErrorTextBecomesARedactedEnvelope(t *testing.T) {
	s := start(t)
	env := envelopeOf(t, s.call("fail_text", `{}`))
	if env["error_type"] != "access_denied" && env["error_type"] != "execution_failed" {
		t.Errorf("error_type %v", env["error_type"])
	}
	msg := env["message"].(string)
	if strings.Contains(msg, "/home/alice") || strings.Contains(msg, "ghp_") {
		t.Errorf("the message leaks: %q", msg)
	}
	if !strings.Contains(msg, "permission denied") {
		t.Errorf("the message lost what went wrong: %q", msg)
	}
	if env["tool"] != "fail_text" || env["success"] != false {
		t.Errorf("envelope %v", env)
	}
}

// TestIsErrorInAnyCaseIsAFailure: a result whose isError a client's
// encoding/json reads (names matched as bytes.EqualFold matches them, the
// long s for s) is a failure: enveloped and redacted, not passed on as a
// success.
func TestIsErrorInAnyCaseIsAFailure(t *testing.T) {
	s := start(t)
	resp := s.call("fail_long_s", `{}`)
	raw, _ := json.Marshal(resp)
	var read struct {
		Result struct{ IsError bool }
	}
	if err := json.Unmarshal(raw, &read); err != nil || !read.Result.IsError {
		t.Fatalf("encoding/json reads no failure in %s (%v)", raw, err)
	}
	env := envelopeOf(t, resp)
	if strings.Contains(string(raw), "hunter2") || env["tool"] != "fail_long_s" {
		t.Errorf("the failure passed as it was: %s", raw)
	}
}

func TestJSONRPCErrorsBecomeEnvelopes(t *testing.T) {
	s := start(t)
	env := envelopeOf(t, s.call("fail_rpc", `{}`))
	if env["error_type"] != "execution_failed" || strings.Contains(env["message"].(string), "hunter2") {
		t.Errorf("fail_rpc: %v", env)
	}
	env = envelopeOf(t, s.call("bad_args", `{"limit":500}`))
	if env["error_type"] != "validation_error" || env["message"] != "limit must be at most 50" {
		t.Errorf("bad_args: %v", env)
	}
	// An unknown tool stays a protocol error, as the specification asks.
	resp := s.call("no_such_tool", `{}`)
	if e, ok := resp["error"].(map[string]any); !ok || e["code"] != float64(-32602) {
		t.Errorf("unknown tool: %v", resp)
	}
}

// An unknown tool's protocol error stays one, its message redacted
// (core/pipeline: a protocol_error's policy is RedactMessage). The
// proxy passed it on as the upstream wrote it (issue 46).
func TestUnknownToolsErrorIsRedacted(t *testing.T) {
	s := start(t)
	resp := s.call("unknown_leaky", `{}`)
	e, ok := resp["error"].(map[string]any)
	if !ok || e["code"] != float64(-32602) {
		t.Fatalf("want the protocol error -32602, got %v", resp)
	}
	if msg, _ := e["message"].(string); strings.Contains(msg, "hunter2") || !strings.Contains(msg, "unknown tool: registry at postgres://") {
		t.Errorf("want the message redacted and readable, got %q", msg)
	}
}

// An unknown tool's protocol error is redacted as the fronts redact one
// (core/chain's Redact stage): what the agent sent itself, a path
// argument, is no leak and stays readable; the server's own path does
// not reach it.
func TestUnknownToolsErrorKeepsWhatTheAgentSent(t *testing.T) {
	s := start(t)
	resp := s.call("unknown_path", `{"path":"/home/alice/notes.txt"}`)
	e, ok := resp["error"].(map[string]any)
	if !ok || e["code"] != float64(-32602) {
		t.Fatalf("want the protocol error -32602, got %v", resp)
	}
	msg, _ := e["message"].(string)
	if !strings.Contains(msg, "/home/alice/notes.txt") || strings.Contains(msg, "/srv/internal") {
		t.Errorf("want the agent's path kept and the server's redacted, got %q", msg)
	}
}

func TestStructuredContentOnlyWithoutAnOutputSchema(t *testing.T) {
	s := start(t)
	s.request("tools/list", `{}`)
	resp := s.call("typed", `{}`)
	envelopeOf(t, resp)
	if _, ok := resp["result"].(map[string]any)["structuredContent"]; ok {
		t.Errorf("structuredContent on a tool with an outputSchema: %v", resp)
	}
	resp = s.call("fail_text", `{}`)
	if _, ok := resp["result"].(map[string]any)["structuredContent"]; !ok {
		t.Errorf("no structuredContent on a tool without an outputSchema: %v", resp)
	}
}

func TestSuccessesRedactedOnlyWithTheOption(t *testing.T) {
	s := start(t)
	if got := textOf(t, s.call("secret_ok", `{}`)); !strings.Contains(got, "hunter2") {
		t.Errorf("without the option a success is untouched, got %q", got)
	}
	s = start(t, proxy.WithRedactSuccesses())
	if got := textOf(t, s.call("secret_ok", `{}`)); strings.Contains(got, "hunter2") || !strings.Contains(got, "/srv/app/db") {
		t.Errorf("with the option the success loses its secret and keeps its path, got %q", got)
	}
}

// Redaction reads what a server wrote, never the protocol's own members:
// a client whose secret-named argument happens to spell "complete" gets
// it redacted from the text and structured content of a success, while
// resultType stays "complete" (redact.SentSecretsRule).
func TestRedactedSuccessKeepsItsResultType(t *testing.T) {
	s := start(t, proxy.WithRedactSuccesses())
	resp := s.call("typed_ok", `{"password":"complete"}`)
	res, _ := resp["result"].(map[string]any)
	if res["resultType"] != "complete" {
		t.Errorf("resultType = %v, want complete: %v", res["resultType"], resp)
	}
	if got := textOf(t, resp); got != "order [REDACTED]" {
		t.Errorf("text = %q, want the echoed secret redacted", got)
	}
	if sc, _ := res["structuredContent"].(map[string]any); sc["state"] != "[REDACTED]" {
		t.Errorf("structuredContent = %v, want the echoed secret redacted", res["structuredContent"])
	}
}

// --redact-successes removes secrets, tokens, DSN passwords and stack
// traces from a success, and keeps what a filesystem server's search
// exists to return: its paths, file URLs and a compiler's positions
// (issue 48: every path became [path]).
func TestRedactSuccessesKeepsPaths(t *testing.T) {
	s := start(t, proxy.WithRedactSuccesses())
	wire, _ := json.Marshal(s.call("search_files", `{"pattern":"*.txt"}`))
	for _, kept := range []string{`/srv/files/a.txt\n/srv/files/sub/b.txt`, `C:\\data\\c.txt`, "root: file:///srv/files",
		`"uri":"file:///srv/files/sub/b.txt"`, `"root":"file:///srv/files"`, "main.go:12:3: x declared"} {
		if !strings.Contains(string(wire), kept) {
			t.Errorf("the success lost %s: %s", kept, wire)
		}
	}
	for _, gone := range []string{"hunter2", "ghp_abcdef", "s3cr3t", "main.main()", "+0x1d"} {
		if strings.Contains(string(wire), gone) {
			t.Errorf("the success still carries %s: %s", gone, wire)
		}
	}
}

func TestNotificationsAndServerRequestsPassThrough(t *testing.T) {
	s := start(t)
	resp := s.call("progress", `{}`)
	if textOf(t, resp) != "done" {
		t.Fatalf("progress: %v", resp)
	}
	want := []string{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1,"total":2}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"halfway"}}`,
	}
	if len(s.other) != 2 || string(s.other[0]) != want[0] || string(s.other[1]) != want[1] {
		t.Fatalf("notifications: got %q", s.other)
	}
	// A sampling request from the server reaches the client, and the
	// client's answer reaches the server.
	s.next++
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sample","arguments":{}}}`, s.next))
	got := string(s.read())
	if got != `{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}` {
		t.Fatalf("sampling request: %s", got)
	}
	s.send(`{"jsonrpc":"2.0","id":"s1","result":{"role":"assistant","content":{"type":"text","text":"ok"}}}`)
	if got := textOf(t, s.await(fmt.Sprint(s.next))); !strings.Contains(got, "assistant") {
		t.Fatalf("the tool did not see the sampling answer: %q", got)
	}
}

func TestChildKilledMidCallIsAnsweredAndRestarted(t *testing.T) {
	s := start(t)
	env := envelopeOf(t, s.call("crash", `{}`))
	if env["error_type"] != "internal_error" || env["incident_id"] == "" || env["retryable"] != true {
		t.Fatalf("crash: %v", env)
	}
	// The restarted child was initialized by the proxy as the client did.
	if got := textOf(t, s.call("echo", `{"text":"again"}`)); got != "again" {
		t.Fatalf("after the restart: %q", got)
	}
	if n := strings.Count(s.logs.waitForN("initialize id=", 2), "initialize id="); n != 2 {
		t.Errorf("the child was initialized %d times, want 2:\n%s", n, s.logs)
	}
}

func TestExitWithChildEndsTheProxy(t *testing.T) {
	s := start(t, proxy.WithExitWithChild())
	envelopeOf(t, s.call("crash", `{}`))
	select {
	case err := <-s.done:
		if !proxy.ExitedWithChild(err) {
			t.Fatalf("Serve returned %v", err)
		}
		s.done <- err
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not end with its child")
	}
}

func TestHugeLineFromTheChildIsBounded(t *testing.T) {
	s := start(t, proxy.WithMaxMessage(1<<20))
	env := envelopeOf(t, s.call("big", `{}`))
	if env["error_type"] != "execution_failed" || !strings.Contains(env["message"].(string), "1 MiB") {
		t.Fatalf("big: %v", env)
	}
	if got := textOf(t, s.call("echo", `{"text":"still here"}`)); got != "still here" {
		t.Fatalf("after the huge line: %q", got)
	}
}

func TestChildThatNeverAnswersIsTimedOut(t *testing.T) {
	s := start(t, proxy.WithTimeout(300*time.Millisecond))
	env := envelopeOf(t, s.call("hang", `{}`))
	if env["error_type"] != "execution_failed" || env["retryable"] != true {
		t.Fatalf("hang: %v", env)
	}
	if got := textOf(t, s.call("echo", `{"text":"next"}`)); got != "next" {
		t.Fatalf("after the timeout: %q", got)
	}
}

func TestResponseToAnUnknownIDIsDropped(t *testing.T) {
	s := start(t)
	if got := textOf(t, s.call("stray", `{}`)); got != "after the stray" {
		t.Fatalf("stray: %q", got)
	}
	for _, o := range s.other {
		if strings.Contains(string(o), "forged") {
			t.Fatalf("the proxy passed on a response to an id the client never used: %s", o)
		}
	}
	if !strings.Contains(s.logs.String(), "not in flight") {
		t.Errorf("the drop is not logged:\n%s", s.logs)
	}
}

func TestClientGarbageIsAnsweredAndTheSessionGoesOn(t *testing.T) {
	s := start(t, proxy.WithMaxMessage(4<<10))
	cases := []struct{ line, code string }{
		{`this is not json`, "-32700"},
		{`{"jsonrpc":"2.0","id":1,"method":`, "-32700"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "-32600"},
		{"\x00\xff\xfe", "-32700"},
	}
	for _, c := range cases {
		s.send(c.line)
		var m struct {
			ID    any `json:"id"`
			Error struct {
				Code json.Number `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(s.read(), &m); err != nil || m.Error.Code.String() != c.code || m.ID != nil {
			t.Errorf("%q: got %+v (%v)", c.line, m, err)
		}
	}
	// A request over the bound is answered by its id.
	s.send(`{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("y", 8<<10) + `"}}}`)
	var m map[string]any
	_ = json.Unmarshal(s.read(), &m)
	if m["id"] != float64(99) || envelopeOf(t, m)["error_type"] != "validation_error" {
		t.Errorf("oversized request: %v", m)
	}
	if got := textOf(t, s.call("echo", `{"text":"fine"}`)); got != "fine" {
		t.Fatalf("after the garbage: %q", got)
	}
}

func TestRateLimitRefusesBeforeTheServer(t *testing.T) {
	s := start(t, proxy.WithRate(0.001, 1))
	if got := textOf(t, s.call("echo", `{"text":"1"}`)); got != "1" {
		t.Fatalf("first: %q", got)
	}
	env := envelopeOf(t, s.call("echo", `{"text":"2"}`))
	if env["retry_after_ms"] == nil || env["retryable"] != true {
		t.Fatalf("refused: %v", env)
	}
}

// A server that writes envelopes itself (one built on mcpguard) keeps its
// next steps behind the proxy: dropping them would leave the agent worse
// off than without the proxy.
func TestServersOwnEnvelopeKeepsItsSteps(t *testing.T) {
	s := start(t)
	env := envelopeOf(t, s.call("own_envelope", `{}`))
	steps, _ := env["next_steps"].([]any)
	if env["error_type"] != "not_found" || len(steps) == 0 || steps[0] != "Call shop_orders to list the orders you can see." {
		t.Fatalf("own envelope: %v", env)
	}
}

// A client that keeps asking a server that never answers cannot make the
// proxy remember requests without bound: past the bound each is refused at
// once, and the session goes on.
func TestRequestsInFlightAreBounded(t *testing.T) {
	s := start(t)
	for i := range 4096 {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"h%d","method":"tools/call","params":{"name":"hang","arguments":{}}}`, i))
	}
	s.send(`{"jsonrpc":"2.0","id":"over","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
	env := envelopeOf(t, s.await("over"))
	if env["retry_after_ms"] == nil || !strings.Contains(env["message"].(string), "too many requests") {
		t.Fatalf("over the bound: %v", env)
	}
}

func TestConcurrencyLimitRefusesBeforeTheServer(t *testing.T) {
	s := start(t, proxy.WithConcurrency(1, 0), proxy.WithTimeout(time.Second))
	s.send(`{"jsonrpc":"2.0","id":"busy","method":"tools/call","params":{"name":"hang","arguments":{}}}`)
	env := envelopeOf(t, s.call("echo", `{"text":"second"}`))
	if env["retry_after_ms"] == nil || env["retryable"] != true {
		t.Fatalf("the second call in flight: %v", env)
	}
	envelopeOf(t, s.await("busy")) // timed out; the server may still run it: its slot is held one timeout more
	if env := envelopeOf(t, s.call("echo", `{"text":"held"}`)); env["retry_after_ms"] == nil {
		t.Fatalf("right after the timeout: %v", env)
	}
	for range 100 { // then the proxy stops waiting for good, and the slot comes free
		if res := s.call("echo", `{"text":"free"}`)["result"].(map[string]any); res["isError"] != true {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the slot never came free")
}

// A call the client cancelled is forgotten: the proxy does not answer it
// when its timeout passes, and the cancellation reaches the server.
func TestCancelledCallIsNotAnswered(t *testing.T) {
	s := start(t, proxy.WithTimeout(200*time.Millisecond))
	s.send(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"hang","arguments":{}}}`)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"user"}}`)
	time.Sleep(400 * time.Millisecond) // past the timeout
	if got := textOf(t, s.call("echo", `{"text":"next"}`)); got != "next" {
		t.Fatalf("after the cancellation: %q", got)
	}
	for _, o := range s.other {
		if strings.Contains(string(o), `"c1"`) {
			t.Fatalf("the proxy answered a cancelled call: %s", o)
		}
	}
}

// A task handle is the Task outcome, whose policy drops a toolFailure
// _meta the upstream forged (core/pipeline), as on a success: only the
// proxy's envelope writes one. The rest of its _meta stays.
func TestATaskHandleLosesAForgedToolFailure(t *testing.T) {
	s := start(t)
	resp := s.call("starts_task", `{"task":"t9","path":"/tmp/x","forge":true}`)
	res, _ := resp["result"].(map[string]any)
	meta, _ := res["_meta"].(map[string]any)
	if _, forged := meta[envelope.ToolFailureMetaKey]; forged || meta["trace"] != "t1" || res["task"] == nil {
		t.Fatalf("want the handle without the forged toolFailure, its trace kept: %v", resp)
	}
}

// TestTaskResultReadsItsOwnCallsArguments: a tasks/result is answered as
// the tools/call that created the task, with that call's arguments: the
// path the agent sent stays in the envelope, though the calls in between
// (whose requests, and their arguments' buffer, the stdio proxy reuses)
// sent another.
func TestTaskResultReadsItsOwnCallsArguments(t *testing.T) {
	s := start(t)
	if resp := s.call("starts_task", `{"task":"t1","path":"/home/alice/.config/app/notes.txt"}`); !strings.Contains(fmt.Sprint(resp), "t1") {
		t.Fatalf("starts_task: %v", resp)
	}
	for range 20 {
		s.call("echo", `{"text":"/home/bobby/.config/app/ideas.txt","times":10}`) // as long as the first call's

	}
	env := envelopeOf(t, s.request("tasks/result", `{"taskId":"t1"}`))
	if msg := fmt.Sprint(env["message"]); !strings.Contains(msg, "/home/alice/.config/app/notes.txt") || strings.Contains(msg, "bobby") {
		t.Fatalf("the task's failure should keep the path its own call sent: %v", env)
	}
}
