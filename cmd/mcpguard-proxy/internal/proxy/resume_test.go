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
