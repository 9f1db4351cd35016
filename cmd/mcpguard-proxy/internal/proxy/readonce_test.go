package proxy_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// The tests of this file are the hostile cases of the proxy's reading
// (issue 32): each message the proxy guards is read once, and what the
// server acts on, and what the client is answered, is what the proxy
// checked.

// A server that decodes ids to values answers "\u0061" as "a": the proxy
// matches answers by the ids it minted, so the call still gets its
// envelope, under the id as the client wrote it; and a ping with id "a"
// sent while it is in flight is the duplicate it is.
func TestStdioIDsSpelledOtherwiseStillGetEnvelopes(t *testing.T) {
	s := startCmd(t, []string{os.Args[0], "proxy-child", "reencode"}, proxy.WithTimeout(5*time.Second))
	s.send(`{"jsonrpc":"2.0","id":"\u0061","method":"tools/call","params":{"name":"fail_rpc","arguments":{}}}`)
	resp := s.await("a")
	if env := envelopeOf(t, resp); env["error_type"] != "execution_failed" || strings.Contains(fmt.Sprint(env), "hunter2") ||
		strings.Contains(fmt.Sprint(env), "did not finish") {
		t.Fatalf("want a redacted execution_failed envelope, got %v", env)
	}
	s.send(`{"jsonrpc":"2.0","id":"\u0061","method":"tools/call","params":{"name":"hang","arguments":{}}}`)
	s.send(`{"jsonrpc":"2.0","id":"a","method":"ping"}`)
	if resp := s.await("a"); resp["error"] == nil || !strings.Contains(fmt.Sprint(resp), "already in flight") {
		t.Fatalf("a ping under the id of a call in flight: %v", resp)
	}
}

// A server that answers the ids the proxy minted spelled otherwise (a
// letter written as an escape) is answered all the same: an answer is
// matched by the id's value, as the server read it, not by its bytes.
func TestStdioServerSpellingMintedIDsOtherwise(t *testing.T) {
	s := startCmd(t, []string{os.Args[0], "proxy-child", "escape-ids"}, proxy.WithTimeout(5*time.Second))
	if res := s.call("echo", `{"text":"hi"}`); !strings.Contains(fmt.Sprint(res), "hi") {
		t.Fatalf("a call answered under an escaped minted id: %v", res)
	}
	s.send(`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"fail_rpc","arguments":{}}}`)
	if env := envelopeOf(t, s.await("c")); env["error_type"] != "execution_failed" || strings.Contains(fmt.Sprint(env), "hunter2") {
		t.Fatalf("want a redacted execution_failed envelope, got %v", env)
	}
}

// Ids that readers read as different values (7.0 and 7, 8E0 and 8) are
// refused with -32600 by the proxy itself; the server never sees them.
func TestStdioIDsOnlyStringsOrIntegers(t *testing.T) {
	s := startCmd(t, []string{os.Args[0], "proxy-child", "reencode"}, proxy.WithTimeout(5*time.Second))
	for _, id := range []string{"7.0", "8E0", "true", `{"a":1}`, "[1]"} {
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"fail_rpc","arguments":{}}}`)
		var resp map[string]any
		if err := json.Unmarshal(s.read(), &resp); err != nil {
			t.Fatal(err)
		}
		e, _ := resp["error"].(map[string]any)
		if e == nil || e["code"] != float64(-32600) || resp["id"] != nil || strings.Contains(fmt.Sprint(resp), "hunter2") {
			t.Fatalf("id %s: want -32600 with a null id, got %v", id, resp)
		}
	}
}

// A member sent twice, or twice in two cases, anywhere in a tool call's
// arguments, is refused before the child sees it: a server that keeps the
// first of duplicates, or reads names whatever their case, would act on a
// value the proxy never checked. As on both SDK fronts, the refusal is a
// validation_error naming the member (issue 35); the child's echo would
// have answered the text it read.
func TestStdioDuplicateMembersAnywhereAreRefused(t *testing.T) {
	s := start(t)
	s.request("tools/list", `{}`)
	for i, c := range []struct{ args, field string }{
		{`{"text":"a","text":"b"}`, "text"},
		{`{"text":"a","Text":"b"}`, "Text"},
		{`{"text":"a","opts":[{"mode":"safe","MODE":"drop"}]}`, "opts[0].MODE"},
		{`{"text":"a","\u0074ext":"b"}`, "text"},
		{`{"text":"a","\u212aey":1,"key":2}`, "key"}, // the Kelvin sign folds to k in encoding/json
	} {
		id := fmt.Sprint(900 + i)
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"echo","arguments":` + c.args + `}}`)
		env := envelopeOf(t, s.await(id))
		fields, _ := env["fields"].([]any)
		if env["error_type"] != "validation_error" || len(fields) == 0 || fields[0].(map[string]any)["field"] != c.field {
			t.Fatalf("%s: want a validation_error naming %s, got %v", c.args, c.field, env)
		}
	}
	if got := textOf(t, s.call("echo", `{"text":"a","Text2":"b"}`)); got != "a" {
		t.Fatalf("distinct members: %q", got)
	}
}

// reencodingUpstream is a streamable HTTP server that reads JSON the
// other way: NaN is null, ids are decoded to values and written back;
// every tool fails with a secret. It counts the tool calls it received.
func reencodingUpstream(t *testing.T, calls *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
		}
		if json.Unmarshal([]byte(strings.ReplaceAll(string(b), "NaN", "null")), &m) != nil || m.Method == "" {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		id, _ := json.Marshal(m.ID)
		w.Header().Set("Content-Type", "application/json")
		switch m.Method {
		case "tools/call":
			calls.Add(1)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"dial postgres://app:hunter2@db.internal/shop failed"}}`, id)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, id)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Over HTTP, an id the upstream writes back otherwise ("\u0061" as "a")
// still gets the envelope; an id that is not a string or an integer, and
// a body the proxy cannot read (NaN, which some servers' readers accept),
// are answered by the proxy and never reach the upstream.
func TestHTTPReadsEachMessageOnce(t *testing.T) {
	var calls atomic.Int32
	up := reencodingUpstream(t, &calls)
	url := proxyFor(t, up.URL+"/mcp", proxy.WithRate(1, 1))
	code, body := post(t, url, `{"jsonrpc":"2.0","id":"\u0061","method":"tools/call","params":{"name":"q","arguments":{}}}`)
	if code != http.StatusOK || strings.Contains(body, "hunter2") || !strings.Contains(body, `"id":"\u0061"`) {
		t.Fatalf("want the envelope under the client's id: %d %s", code, body)
	}
	envelopeOf(t, lastData(t, body))
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":7.0,"method":"tools/call","params":{"name":"q","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"q","arguments":{"n":NaN}}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"q\",\"arguments\":{\"n\":\"\xff\"}}}",
	} {
		code, body := post(t, url, msg)
		if code != http.StatusBadRequest || strings.Contains(body, "hunter2") || lastData(t, body)["error"] == nil {
			t.Fatalf("%s: want 400 with the proxy's error, got %d %s", msg, code, body)
		}
	}
	// A member sent twice in a tool call's arguments is answered by the
	// proxy too, as the fronts answer it: a validation_error naming it
	// (through a proxy without the rate limit, which the pipeline puts
	// before the declared check, and which the first call spent).
	code, body = post(t, proxyFor(t, up.URL+"/mcp"), `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"q","arguments":{"n":1,"n":2}}}`)
	if env := envelopeOf(t, lastData(t, body)); code != http.StatusOK || env["error_type"] != "validation_error" || strings.Contains(body, "hunter2") {
		t.Fatalf("a member sent twice: want the validation_error, got %d %s", code, body)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("the upstream received %d tool calls, want the one the proxy read", n)
	}
}

// The bound holds on what the client receives: a failure of 400 KiB of
// HTML, which escaping grows past 2 MiB, is not relayed over a 1 MiB
// bound but answered with the too-large envelope.
func TestBoundHoldsAfterEscaping(t *testing.T) {
	s := start(t, proxy.WithMaxMessage(1<<20))
	s.send(`{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"html","arguments":{}}}`)
	line := s.read()
	if len(line) > 1<<20 {
		t.Fatalf("the answer is %d bytes, over the 1 MiB bound", len(line))
	}
	var resp map[string]any
	if err := json.Unmarshal(line, &resp); err != nil {
		t.Fatal(err)
	}
	if env := envelopeOf(t, resp); !strings.Contains(fmt.Sprint(env["message"]), "larger than the proxy's limit") {
		t.Fatalf("want the too-large envelope, got %v", env)
	}
}

// hostileUpstream answers every tool call the way its name says: crash
// with an HTTP 500 crash page, gzip and br with a compressed failure.
func hostileUpstream(t *testing.T) *httptest.Server {
	const secret = `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"dial postgres://app:hunter2@db.internal/shop failed"}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m childMsg
		_ = json.NewDecoder(r.Body).Decode(&m)
		switch m.Params.Name {
		case "crash":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, "<html><pre>panic: dial postgres://app:hunter2@db.internal/shop\ngoroutine 1 [running]:\nmain.query()</pre></html>")
		case "gzip", "br":
			enc := m.Params.Name
			if enc == "gzip" && !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, secret, m.ID) // uncompressed, as asked
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", enc)
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			fmt.Fprintf(zw, secret, m.ID)
			zw.Close()
			w.Write(b.Bytes()) // "br" is gzip too: the proxy must not pass it unread
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// An upstream's crash page is never the answer to a tool call, a
// compressed answer is read or refused, never passed on unread, and the
// client's Accept-Encoding does not reach the upstream.
func TestHTTPUpstreamCrashPagesAndEncodings(t *testing.T) {
	url := proxyFor(t, hostileUpstream(t).URL+"/mcp")
	for i, tool := range []string{"crash", "gzip", "br"} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(callBody(i+1, tool, `{}`)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Accept-Encoding", "gzip, br")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		b := raw
		if resp.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			b, _ = io.ReadAll(zr)
		}
		if resp.StatusCode != http.StatusOK || strings.Contains(string(b), "hunter2") || resp.Header.Get("Content-Encoding") != "" {
			t.Fatalf("%s: want an envelope the client reads as it is, got %d %v %.300q", tool, resp.StatusCode, resp.Header, b)
		}
		envelopeOf(t, lastData(t, string(b)))
	}
}

// --rate is one budget per client, shared by its tools: with a burst of
// one, a second call to another tool is refused. WithRatePerTool gives
// each tool its own.
func TestRateIsOneBudgetPerClient(t *testing.T) {
	s := start(t, proxy.WithRate(0.001, 1))
	if got := textOf(t, s.call("echo", `{"text":"a"}`)); got != "a" {
		t.Fatalf("first call: %q", got)
	}
	if env := envelopeOf(t, s.call("secret_ok", `{}`)); env["retry_after_ms"] == nil {
		t.Fatalf("want a rate refusal of another tool, got %v", env)
	}
	per := start(t, proxy.WithRate(0.001, 1), proxy.WithRatePerTool())
	per.call("echo", `{"text":"a"}`)
	if got := textOf(t, per.call("secret_ok", `{}`)); !strings.Contains(got, "connected") {
		t.Fatalf("per tool, another tool's call: %q", got)
	}
}

// A call the client cancelled keeps its slot while the server still runs
// it: with --concurrency 1, the next call is refused.
func TestStdioCancelledCallKeepsItsSlot(t *testing.T) {
	s := start(t, proxy.WithConcurrency(1, 0), proxy.WithTimeout(30*time.Second))
	s.send(`{"jsonrpc":"2.0","id":"h","method":"tools/call","params":{"name":"hang","arguments":{}}}`)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"h"}}`)
	if env := envelopeOf(t, s.call("echo", `{"text":"a"}`)); env["retry_after_ms"] == nil {
		t.Fatalf("want a concurrency refusal while the server runs the cancelled call, got %v", env)
	}
}

// An HTTP client that hangs up on a call does not free its slot while
// the upstream still runs it.
func TestHTTPHungUpCallKeepsItsSlot(t *testing.T) {
	url := proxyFor(t, upstream(t).URL+"/mcp", proxy.WithConcurrency(1, 0), proxy.WithTimeout(3*time.Second))
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(callBody(1, "hang", `{}`)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	cancel() // the client hangs up; the upstream still runs hang
	resp.Body.Close()
	_, body := post(t, url, callBody(2, "echo", `{"text":"a"}`))
	if env := envelopeOf(t, lastData(t, body)); env["retry_after_ms"] == nil {
		t.Fatalf("want a concurrency refusal while the upstream runs the call, got %v", env)
	}
}

// --redact-successes never redacts inside binary content (an image's or
// audio's data, a resource's blob): a client would reject the base64.
func TestRedactSuccessesLeavesBinaryAlone(t *testing.T) {
	s := start(t, proxy.WithRedactSuccesses())
	resp := s.call("image", `{}`)
	b, _ := json.Marshal(resp)
	if strings.Contains(string(b), "hunter2") || strings.Count(string(b), childBase64) != 2 {
		t.Fatalf("want the text redacted and both base64 members intact: %s", b)
	}
}

// The child's stderr goes through the proxy's redaction (a server prints
// its connection URL there), unless WithRawChildStderr.
func TestChildStderrIsRedacted(t *testing.T) {
	s := start(t)
	s.request("ping", `{}`)
	if logs := s.logs.waitFor("child: connecting to redis://"); strings.Contains(logs, "hunter2") || !strings.Contains(logs, "child: connecting to redis://") {
		t.Fatalf("the child's stderr: %s", logs)
	}
	raw := start(t, proxy.WithRawChildStderr())
	raw.request("ping", `{}`)
	if !strings.Contains(raw.logs.waitFor("hunter2"), "hunter2") {
		t.Fatalf("WithRawChildStderr: %s", raw.logs.String())
	}
}

// A call to a tool the server has not listed is answered by the proxy as
// the mcp-go and go-sdk fronts answer it (-32602), naming the tools that
// exist, whatever the server would have said; the server never sees it.
func TestUnknownToolIsAnsweredWithTheTools(t *testing.T) {
	s := start(t)
	resp := s.call("no_such_tool", `{}`)
	e, _ := resp["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32602) || !strings.Contains(fmt.Sprint(e["message"]), `unknown tool "no_such_tool"`) ||
		!strings.Contains(fmt.Sprint(e["message"]), "echo") {
		t.Fatalf("want -32602 naming the tools, got %v", resp)
	}
	// The name is the client's, and still redacted: a secret the client
	// sent must not come back (core/redact), as go-sdk's front answers it.
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	resp = s.call(token, `{}`)
	e, _ = resp["error"].(map[string]any)
	if msg := fmt.Sprint(e["message"]); e == nil || strings.Contains(msg, token) || !strings.Contains(msg, `unknown tool "[REDACTED]"`) {
		t.Errorf("want the token-shaped name redacted, got %v", resp)
	}
}

// An upstream's own _meta["io.modelcontextprotocol/toolFailure"] is kept,
// as relays keep it, and says what the envelope says.
func TestUpstreamToolFailureMetaAgreesWithTheEnvelope(t *testing.T) {
	s := start(t)
	resp := s.call("own_meta", `{}`)
	env := envelopeOf(t, resp)
	meta, _ := resp["result"].(map[string]any)["_meta"].(map[string]any)
	failure, _ := meta["io.modelcontextprotocol/toolFailure"].(map[string]any)
	b, _ := json.Marshal(resp)
	if failure == nil || meta["trace"] != "t1" || strings.Contains(string(b), "ghp_") ||
		fmt.Sprint(failure["code"]) != fmt.Sprint(env["error_type"]) {
		t.Fatalf("want the toolFailure kept, as the envelope %v says: %v", env, meta)
	}
}

// Over HTTP too, the proxy lists the tools itself before the first call:
// a declared schema is checked, and an unknown tool answered, from the
// first call.
func TestHTTPListsToolsBeforeTheFirstCall(t *testing.T) {
	url := proxyFor(t, upstream(t).URL+"/mcp")
	_, body := post(t, url, callBody(1, "no_such_tool", `{}`), "Mcp-Session-Id", "s-1")
	if e, _ := lastData(t, body)["error"].(map[string]any); e == nil || !strings.Contains(fmt.Sprint(e["message"]), "echo") {
		t.Fatalf("want -32602 naming the tools, got %s", body)
	}
}

// A client's notifications/cancelled reaches the upstream under the id
// the proxy minted for the request it names; one that names no request in
// flight is answered 202 by the proxy and goes nowhere.
func TestHTTPCancellationNamesTheMintedID(t *testing.T) {
	seen := make(chan string, 4)
	var called atomic.Value
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		_ = json.NewDecoder(r.Body).Decode(&m)
		switch m.Method {
		case "tools/call":
			called.Store(string(m.ID))
			seen <- "call"
			<-r.Context().Done()
		case "notifications/cancelled":
			seen <- string(m.Params.RequestID)
			w.WriteHeader(http.StatusAccepted)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		}
	}))
	t.Cleanup(up.Close)
	url := proxyFor(t, up.URL+"/mcp", proxy.WithTimeout(2*time.Second))
	go func() {
		resp, err := http.Post(url, "application/json", strings.NewReader(callBody(5, "slow", `{}`)))
		if err == nil {
			resp.Body.Close()
		}
	}()
	if got := <-seen; got != "call" {
		t.Fatalf("the upstream saw %s first", got)
	}
	if code, _ := post(t, url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}`); code != http.StatusAccepted {
		t.Fatalf("a cancellation of no request in flight: %d", code)
	}
	post(t, url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
	if got := <-seen; got != called.Load() || !strings.Contains(got, "mcpguard-") {
		t.Fatalf("the upstream's cancellation names %s, the call went as %v", got, called.Load())
	}
}

// A notifications/cancelled reaches the upstream only for a request of
// the caller that sent it: another session's or another credential's
// request under the same id is not cancelled, and a request of MCP
// 2026-07-28 without a session, which its client cancels by ending its
// stream, is cancelled by no notification, whoever sends it.
func TestHTTPCancellationStaysWithItsCaller(t *testing.T) {
	seen := make(chan string, 8)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		_ = json.NewDecoder(r.Body).Decode(&m)
		switch m.Method {
		case "tools/call":
			seen <- "call"
			<-r.Context().Done()
		case "notifications/cancelled":
			seen <- "cancelled " + string(m.Params.RequestID)
			w.WriteHeader(http.StatusAccepted)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		}
	}))
	t.Cleanup(up.Close)
	url := proxyFor(t, up.URL+"/mcp", proxy.WithTimeout(5*time.Second))
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`
	for _, tc := range []struct {
		name         string
		owner, other []string // the headers of the call's client, and of another
		ownerCancels bool     // the owner's own notification reaches the upstream
	}{
		{"another session", []string{"Mcp-Session-Id", "s-a"}, []string{"Mcp-Session-Id", "s-b"}, true},
		{"another credential", []string{"Authorization", "Bearer a"}, []string{"Authorization", "Bearer b"}, true},
		{"2026-07-28, no session", []string{"Mcp-Protocol-Version", "2026-07-28"}, []string{"Mcp-Protocol-Version", "2026-07-28"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, hangUp := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(callBody(5, "slow", `{}`)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set(tc.owner[0], tc.owner[1])
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}()
			if got := <-seen; got != "call" {
				t.Fatalf("the upstream saw %s first", got)
			}
			if code, _ := post(t, url, cancel, tc.other...); code != http.StatusAccepted {
				t.Fatalf("another caller's cancellation: %d", code)
			}
			select {
			case got := <-seen:
				t.Fatalf("another caller's notification cancelled the call: the upstream saw %s", got)
			default:
			}
			post(t, url, cancel, tc.owner...)
			select {
			case got := <-seen:
				if !tc.ownerCancels || !strings.Contains(got, "mcpguard-") {
					t.Fatalf("the owner's notification: the upstream saw %s", got)
				}
			default:
				if tc.ownerCancels {
					t.Fatal("the owner's notification did not reach the upstream")
				}
			}
			hangUp() // which ends the call upstream
			<-done
		})
	}
}

// leakyRPCError is the message of a JSON-RPC error an upstream answers a
// request other than a tool call with, naming its database's password.
const leakyRPCError = "dial postgres://app:hunter2@db.internal:5432/shop failed"

// A JSON-RPC error the upstream answers another request with (here
// prompts/get, in an HTTP 200 or over stdio) reaches the client with what
// it says, redacted: its secrets do not.
func TestRPCErrorsToOtherRequestsAreRedacted(t *testing.T) {
	s := start(t)
	stdio := s.request("prompts/get", `{"name":"leaky"}`)
	_, body := post(t, proxyFor(t, upstream(t).URL+"/mcp"), `{"jsonrpc":"2.0","id":"p","method":"prompts/get","params":{"name":"leaky"}}`)
	for transport, resp := range map[string]map[string]any{"stdio": stdio, "HTTP": lastData(t, body)} {
		b, _ := json.Marshal(resp)
		e, _ := resp["error"].(map[string]any)
		if strings.Contains(string(b), "hunter2") || e == nil || e["code"] != float64(-32603) || !strings.Contains(fmt.Sprint(e["message"]), "dial postgres://") {
			t.Errorf("%s: want the error, its password redacted: %s", transport, b)
		}
	}
}
