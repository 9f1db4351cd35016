package proxy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// upstream is a hand-written streamable HTTP server whose tools misbehave
// on cue: echo answers in JSON, fail_text over an event stream after a
// progress notification, hang never answers, big sends an event over the
// proxy's bound, and drop closes the connection mid-call.
func upstream(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m childMsg
		b, _ := io.ReadAll(r.Body)
		if json.Unmarshal(b, &m) != nil || m.Method == "" {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		reply := func(res string) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, res)
		}
		switch m.Method {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", "s-1")
			reply(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"up","version":"1"}}`)
		case "tools/list":
			reply(`{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"fail_text","inputSchema":{"type":"object"}},{"name":"hang","inputSchema":{"type":"object"}},{"name":"big","inputSchema":{"type":"object"}},{"name":"drop","inputSchema":{"type":"object"}},{"name":"poll","inputSchema":{"type":"object"}}]}`)
		case "tools/call":
			upstreamCall(w, r, m)
		case "prompts/get":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"%s","data":{"dsn":"postgres://app:hunter2@db.internal:5432/shop"}}}`, m.ID, leakyRPCError)
		default:
			reply(`{}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func upstreamCall(w http.ResponseWriter, r *http.Request, m childMsg) {
	switch m.Params.Name {
	case "echo":
		s, _ := json.Marshal(m.Params.Arguments["text"])
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%s}]}}`, m.ID, s)
	case "fail_text":
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"read /etc/app/secret.key failed: password=hunter2\"}],\"isError\":true}}\n\n", m.ID)
	case "hang":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	case "big":
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]}}\n\n", m.ID, strings.Repeat("x", 3<<20))
	case "drop":
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	case "poll":
		// SEP-1699: the server ends the POST's stream before it answers;
		// the client resumes on a GET with Last-Event-ID.
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "id: e1\nretry: 100\ndata: \n\n")
	}
}

func post(t *testing.T, url, body string, header ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// lastData is the JSON message of a JSON body, or the last data of an
// event stream.
func lastData(t *testing.T, body string) map[string]any {
	t.Helper()
	msg := body
	if i := strings.LastIndex(body, "data: "); i >= 0 {
		msg = strings.TrimSpace(strings.SplitN(body[i+6:], "\n", 2)[0])
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(msg), &m); err != nil {
		t.Fatalf("not a JSON-RPC message: %.300q", body)
	}
	return m
}

func proxyFor(t *testing.T, up string, opts ...proxy.Option) string {
	opts = append([]proxy.Option{proxy.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}, opts...)
	p := httptest.NewServer(proxy.NewHTTP(up, opts...))
	t.Cleanup(p.Close)
	return p.URL + "/mcp"
}

func callBody(id int, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

func TestHTTPPassThroughAndEnvelopes(t *testing.T) {
	up := upstream(t)
	url := proxyFor(t, up.URL+"/mcp", proxy.WithMaxMessage(1<<20), proxy.WithTimeout(300*time.Millisecond))
	_, direct := post(t, up.URL, callBody(1, "echo", `{"text":"hi"}`))
	if _, got := post(t, url, callBody(1, "echo", `{"text":"hi"}`)); got != direct {
		t.Fatalf("a success changed: %s, want %s", got, direct)
	}
	_, body := post(t, url, callBody(2, "fail_text", `{}`))
	if !strings.Contains(body, `"method":"notifications/progress"`) {
		t.Errorf("the progress event was lost: %s", body)
	}
	env := envelopeOf(t, lastData(t, body))
	if m := env["message"].(string); strings.Contains(m, "hunter2") || strings.Contains(m, "/etc/app") {
		t.Errorf("the message leaks: %q", m)
	}
	for _, c := range []struct{ tool, want string }{{"hang", "execution_failed"}, {"big", "execution_failed"}, {"drop", "internal_error"}} {
		_, body := post(t, url, callBody(3, c.tool, `{}`))
		if env := envelopeOf(t, lastData(t, body)); env["error_type"] != c.want {
			t.Errorf("%s: %v", c.tool, env)
		}
	}
	code, body := post(t, url, `{"jsonrpc":"2.0","id":4,"method":"ping","params":{"pad":"`+strings.Repeat("z", 2<<20)+`"}}`)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(body, `"id":4`) {
		t.Errorf("an oversized request: %d %s", code, body)
	}
}

func TestFiftyHTTPClients(t *testing.T) {
	up := upstream(t)
	url := proxyFor(t, up.URL+"/mcp", proxy.WithTimeout(2*time.Second))
	before := runtime.NumGoroutine()
	var wg sync.WaitGroup
	errs := make(chan string, 50*20)
	for c := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				tool := []string{"echo", "fail_text"}[i%2]
				code, body := post(t, url, callBody(c*100+i, tool, fmt.Sprintf(`{"text":"c%d-%d"}`, c, i)))
				m := lastData(t, body)
				if code != 200 || fmt.Sprint(m["id"]) != fmt.Sprint(c*100+i) {
					errs <- fmt.Sprintf("client %d call %d: %d %.200s", c, i, code, body)
				}
				if tool == "echo" && !bytes.Contains([]byte(body), []byte(fmt.Sprintf("c%d-%d", c, i))) {
					errs <- "echo lost its text: " + body
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	http.DefaultClient.CloseIdleConnections()
	noLeaks(t, before)
}

// The HTTP proxy's rate limit keys on the client's address, not on the
// session id it sends, which a client can mint.
func TestHTTPRateLimitIgnoresMintedSessions(t *testing.T) {
	up := upstream(t)
	url := proxyFor(t, up.URL, proxy.WithRate(0.001, 1))
	send := func(session string) map[string]any {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(callBody(1, "echo", `{"text":"x"}`)))
		req.Header.Set("Mcp-Session-Id", session)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return lastData(t, string(b))
	}
	if textOf(t, send("a")) != "x" {
		t.Fatal("the first call was refused")
	}
	if env := envelopeOf(t, send("b")); env["retry_after_ms"] == nil {
		t.Fatalf("a new session id escaped the limit: %v", env)
	}
}
