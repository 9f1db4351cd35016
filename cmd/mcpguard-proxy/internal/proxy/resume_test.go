package proxy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// pollingUpstream is a streamable HTTP server that polls as SEP-1699
// describes (and go-sdk's servers with an event store do): it ends a tool
// call's POST event stream with a priming event (an id and a retry, no
// data) before it answers, and answers on the GET stream the client
// resumes with Last-Event-ID. poll_fail fails with a JSON-RPC error that
// leaks a path and a token; poll_ok succeeds; poll_big answers with 2 MiB.
func pollingUpstream(t *testing.T) *httptest.Server {
	var mu sync.Mutex
	answers := map[string][]string{} // session -> answers not yet sent
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		if r.Method == http.MethodGet {
			if r.Header.Get("Last-Event-ID") == "" {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			mu.Lock()
			for i, a := range answers[sid] {
				fmt.Fprintf(w, "id: r%d\nevent: message\ndata: %s\n\n", i, a)
			}
			mu.Unlock()
			return
		}
		var m childMsg
		b, _ := io.ReadAll(r.Body)
		if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		switch m.Method {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", "s-"+string(m.ID))
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"poll","version":"1"}}}`, m.ID)
			return
		case "tools/call":
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
			return
		}
		answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"polled fine"}]}}`, m.ID)
		if m.Params.Name == "poll_big" {
			answer = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}]}}`, m.ID, strings.Repeat("x", 2<<20))
		}
		if m.Params.Name == "poll_fail" {
			answer = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"open /home/alice/.ssh/id_rsa: permission denied (token ghp_abcdefghijklmnopqrstuvwxyz0123456789)"}}`, m.ID)
		}
		mu.Lock()
		answers[sid] = append(answers[sid], answer)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "id: p1\nretry: 10\ndata: \n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// resume GETs the session's stream as a client resuming with Last-Event-ID.
func resume(t *testing.T, url, sid string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Last-Event-ID", "p1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// events returns the JSON-RPC messages of an event stream, by id.
func eventsByID(t *testing.T, body string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, line := range strings.Split(body, "\n") {
		d, ok := strings.CutPrefix(line, "data: ")
		if !ok || strings.TrimSpace(d) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(d), &m); err != nil {
			t.Fatalf("an event that is not JSON: %q", d)
		}
		out[fmt.Sprint(m["id"])] = m
	}
	return out
}

// When the upstream ends a tool call's POST stream before it answers, the
// answer that comes on the resumed GET stream is rewritten as on the POST:
// an upstream error becomes a redacted envelope, a success passes as it
// is, and a replay on a later resumption is rewritten again.
func TestHTTPAnswerOnResumedStreamIsRewritten(t *testing.T) {
	up := pollingUpstream(t)
	url := proxyFor(t, up.URL+"/mcp")
	_, _, sid := postIn(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if sid == "" {
		t.Fatal("no session")
	}
	for id, tool := range map[int]string{2: "poll_fail", 3: "poll_ok"} {
		if _, body, _ := postIn(t, url, sid, callBody(id, tool, `{}`)); strings.Contains(body, `"result"`) || strings.Contains(body, `"error"`) {
			t.Fatalf("%s answered on the POST: %s", tool, body)
		}
	}
	for range 2 {
		got := eventsByID(t, resume(t, url, sid))
		env := envelopeOf(t, got["2"])
		if m := env["message"].(string); strings.Contains(m, "/home/alice") || strings.Contains(m, "ghp_") || env["tool"] != "poll_fail" {
			t.Errorf("the resumed answer to poll_fail: %v", env)
		}
		if textOf(t, got["3"]) != "polled fine" {
			t.Errorf("the resumed answer to poll_ok: %v", got["3"])
		}
	}
}

// An answer on the resumed GET stream over the proxy's bound is dropped,
// and the call it answered gets the envelope it gets on the POST, rather
// than no answer at all.
func TestHTTPOversizedAnswerOnResumedStream(t *testing.T) {
	up := pollingUpstream(t)
	url := proxyFor(t, up.URL+"/mcp", proxy.WithMaxMessage(1<<20))
	_, _, sid := postIn(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	postIn(t, url, sid, callBody(2, "poll_big", `{}`))
	body := resume(t, url, sid)
	if len(body) > 1<<20 {
		t.Fatalf("the oversized answer reached the client: %d bytes", len(body))
	}
	if env := envelopeOf(t, eventsByID(t, body)["2"]); env["error_type"] != "execution_failed" || env["tool"] != "poll_big" {
		t.Errorf("the envelope for an oversized resumed answer: %v", env)
	}
}

// A call whose answer comes on a resumed GET stream holds its
// --concurrency slot until that answer, not until its timeout: the server
// is done with it once it answered.
func TestHTTPAnswerOnResumedStreamFreesTheSlot(t *testing.T) {
	up := pollingUpstream(t)
	url := proxyFor(t, up.URL+"/mcp", proxy.WithConcurrency(1, 0), proxy.WithTimeout(time.Minute))
	_, _, sid := postIn(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if _, body, _ := postIn(t, url, sid, callBody(2, "poll_ok", `{}`)); strings.Contains(body, `"result"`) {
		t.Fatalf("answered on the POST: %s", body)
	}
	// The server has not answered yet: the slot is held.
	if _, body, _ := postIn(t, url, sid, callBody(3, "poll_ok", `{}`)); !strings.Contains(body, "retry_after_ms") {
		t.Fatalf("want a concurrency refusal while the server runs the first call, got %s", body)
	}
	if got := eventsByID(t, resume(t, url, sid)); textOf(t, got["2"]) != "polled fine" {
		t.Fatalf("the resumed answer: %v", got)
	}
	if _, body, _ := postIn(t, url, sid, callBody(4, "poll_ok", `{}`)); strings.Contains(body, "retry_after_ms") {
		t.Fatalf("the answer on the resumed stream did not free the slot: %s", body)
	}
}

// leakText is a failure text that holds what must never reach a client: a
// DSN's password, a token and a stack trace.
const leakText = "query failed: dial postgres://admin:Sup3rS3cretPw@db.internal:5432/prod (token ghp_abcdefghijklmnopqrstuvwxyz0123456789)\ngoroutine 7 [running]:\nmain.(*Store).Query(0xc000010000)\n\t/srv/app/store.go:88 +0x1d"

// leaks are the parts of leakText a client must not read.
var leaks = []string{"Sup3rS3cretPw", "ghp_abcdef", "goroutine 7", "store.go:88"}

// replayingUpstream is a streamable HTTP server that keeps every event of
// every POST stream and replays it, as go-sdk's servers with an event
// store do: a tools/call is answered on its POST stream after a priming
// event (an id, no data), and a GET with Last-Event-ID replays the events
// of that stream after it. It replays by the event id alone, whatever the
// session. leak fails with an isError result, leak_rpc with a JSON-RPC
// error, leak_ok succeeds with the same text.
func replayingUpstream(t *testing.T) *httptest.Server {
	var mu sync.Mutex
	streams := map[string][]string{} // stream -> its events' data, in order
	text, _ := json.Marshal(leakText)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			stream, idx, ok := strings.Cut(r.Header.Get("Last-Event-ID"), "_")
			if !ok {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			mu.Lock()
			for i, d := range streams[stream] {
				if fmt.Sprint(i) > idx {
					fmt.Fprintf(w, "id: %s_%d\nevent: message\ndata: %s\n\n", stream, i, d)
				}
			}
			mu.Unlock()
			return
		}
		var m childMsg
		b, _ := io.ReadAll(r.Body)
		if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var answer string
		switch {
		case m.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", "s-"+strings.Trim(string(m.ID), `"`))
			answer = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"replay","version":"1"}}}`, m.ID)
		case m.Method != "tools/call":
			answer = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		case m.Params.Name == "leak_rpc":
			answer = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":%s}}`, m.ID, text)
		case m.Params.Name == "leak_ok":
			answer = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%s}]}}`, m.ID, text)
		default:
			answer = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%s}],"isError":true}}`, m.ID, text)
		}
		mu.Lock()
		stream := fmt.Sprintf("st%d", len(streams))
		streams[stream] = []string{"", answer}
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "id: %s_0\nretry: 10\ndata: \n\nid: %s_1\nevent: message\ndata: %s\n\n", stream, stream, answer)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// primingID is the id of the first event of an event stream.
func primingID(t *testing.T, body string) string {
	t.Helper()
	for _, line := range strings.Split(body, "\n") {
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			return id
		}
	}
	t.Fatalf("no event id in %q", body)
	return ""
}

// resumeFrom GETs the stream of session sid ("" for none) from the event
// lastID, as a client resuming it.
func resumeFrom(t *testing.T, url, sid, lastID string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	req.Header.Set("Last-Event-ID", lastID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func leaked(body string) []string {
	var found []string
	for _, l := range leaks {
		if strings.Contains(body, l) {
			found = append(found, l)
		}
	}
	return found
}

// A call answered on its POST stream is replayed by the server to a GET
// with Last-Event-ID set to that stream's priming event: the replay is
// rewritten as the first answer was (the client's id, an envelope,
// redacted), never the server's own answer, and a replay on a GET of
// another session, or of none, reaches no one.
func TestHTTPReplayedAnswerIsRewritten(t *testing.T) {
	for _, tc := range []struct {
		tool string
		opts []proxy.Option
	}{
		{tool: "leak"},
		{tool: "leak_rpc"},
		{tool: "leak_ok", opts: []proxy.Option{proxy.WithRedactSuccesses()}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			up := replayingUpstream(t)
			url := proxyFor(t, up.URL+"/mcp", tc.opts...)
			init := `{"jsonrpc":"2.0","id":"%s","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
			_, _, sid := postIn(t, url, "", fmt.Sprintf(init, "a"))
			_, _, other := postIn(t, url, "", fmt.Sprintf(init, "b"))
			if sid == "" || other == "" || sid == other {
				t.Fatalf("sessions %q %q", sid, other)
			}
			_, first, _ := postIn(t, url, sid, callBody(2, tc.tool, `{}`))
			if l := leaked(first); len(l) > 0 {
				t.Fatalf("the first answer leaked %v: %s", l, first)
			}
			last := primingID(t, first)
			for range 2 {
				replay := resumeFrom(t, url, sid, last)
				if l := leaked(replay); len(l) > 0 {
					t.Fatalf("the replayed answer leaked %v: %s", l, replay)
				}
				if got := lastData(t, replay); fmt.Sprint(got["id"]) != "2" {
					t.Errorf("the replay is not under the client's id: %s", replay)
				}
				if lastData(t, replay)["result"] == nil {
					t.Errorf("the replay is not a result: %s", replay)
				}
			}
			for _, s := range []string{other, ""} {
				if replay := resumeFrom(t, url, s, last); strings.Contains(replay, `"result"`) || strings.Contains(replay, `"error"`) || len(leaked(replay)) > 0 {
					t.Errorf("session %q read another session's answer: %s", s, replay)
				}
			}
		})
	}
}

// Past any bound of what the proxy remembers of calls awaiting an answer
// on a GET stream, an answer there is still rewritten, never passed as
// the server wrote it.
func TestHTTPManyResumedAnswersAreRewritten(t *testing.T) {
	up := pollingUpstream(t)
	url := proxyFor(t, up.URL+"/mcp")
	_, _, sid := postIn(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	const calls = 100
	for id := 2; id < 2+calls; id++ {
		postIn(t, url, sid, callBody(id, "poll_fail", `{}`))
	}
	body := resume(t, url, sid)
	if strings.Contains(body, "ghp_") || strings.Contains(body, "/home/alice") {
		t.Fatalf("a resumed answer reached the client as the server wrote it")
	}
	if got := eventsByID(t, body); len(got) != calls {
		t.Errorf("%d answers, want %d", len(got), calls)
	}
}

// A response the proxy cannot attribute never reaches the client as the
// server wrote it, whatever the answer it comes in: JSON to a GET or to a
// notification, or a content type the proxy does not read (a tool call's
// is answered by the proxy).
func TestHTTPUnattributedResponsesAreDropped(t *testing.T) {
	text, _ := json.Marshal(leakText)
	leak := fmt.Sprintf(`{"jsonrpc":"2.0","id":"mcpguard-abcdefghij-1","result":{"content":[{"type":"text","text":%s}],"isError":true}}`, text)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		switch {
		case r.Method == http.MethodGet || !strings.Contains(string(b), `"tools/call"`):
			w.Header().Set("Content-Type", "application/json")
		default:
			w.Header().Set("Content-Type", "text/plain")
		}
		fmt.Fprint(w, leak)
	}))
	t.Cleanup(up.Close)
	url := proxyFor(t, up.URL)
	if body := resumeFrom(t, url, "s-1", "e1"); len(leaked(body)) > 0 || strings.Contains(body, "result") {
		t.Errorf("a GET: %s", body)
	}
	if _, body, _ := postIn(t, url, "s-1", `{"jsonrpc":"2.0","method":"notifications/initialized"}`); len(leaked(body)) > 0 || strings.Contains(body, "result") {
		t.Errorf("a notification: %s", body)
	}
	_, body, _ := postIn(t, url, "s-1", callBody(3, "leak", `{}`))
	if len(leaked(body)) > 0 {
		t.Fatalf("a tool call answered in text/plain: %s", body)
	}
	if env := envelopeOf(t, lastData(t, body)); env["tool"] != "leak" {
		t.Errorf("a tool call answered in text/plain: %v", env)
	}
}
