package proxy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// files is the state of fs_read and fs_write, on the stdio child and the
// HTTP upstream alike: fs_read fails "does not exist" (not_found), with
// how many reads reached the server, until fs_write made the file.
type files struct {
	mu    sync.Mutex
	data  map[string]string
	reads int
}

// call runs tool with args, if it is one of files'.
func (f *files) call(tool string, args map[string]any) (text string, isError, ok bool) {
	path, _ := args["path"].(string)
	f.mu.Lock()
	defer f.mu.Unlock()
	switch tool {
	case "fs_read":
		f.reads++
		if content, found := f.data[path]; found {
			return content, false, true
		}
		return fmt.Sprintf("open %s: no such file or directory (read %d)", path, f.reads), true, true
	case "fs_write":
		if f.data == nil {
			f.data = map[string]string{}
		}
		f.data[path], _ = args["content"].(string)
		return "written", false, true
	}
	return "", false, false
}

// The newcomer's scenario through the stdio proxy: three reads of a file
// that does not exist, the fourth held back, a write, then the read runs.
func TestStdioRepeatsReleasesTheReadOnceTheWriteSucceeded(t *testing.T) {
	s := start(t)
	for i := 1; i <= 3; i++ {
		env := envelopeOf(t, s.call("fs_read", `{"path":"later.txt"}`))
		if env["error_type"] != "not_found" || !strings.Contains(env["message"].(string), fmt.Sprintf("(read %d)", i)) {
			t.Fatalf("read %d: %v", i, env)
		}
	}
	env := envelopeOf(t, s.call("fs_read", ` { "path" : "later\u002etxt" } `))
	if env["error_type"] != "execution_failed" || env["retryable"] != true || env["retry_after_ms"] == nil ||
		!strings.Contains(env["message"].(string), "Not run") || !strings.Contains(env["message"].(string), "(read 3)") {
		t.Fatalf("the 4th identical read, spelled otherwise: %v", env)
	}
	if textOf(t, s.call("fs_write", `{"path":"later.txt","content":"hello"}`)) != "written" {
		t.Fatal("the write failed")
	}
	if got := textOf(t, s.call("fs_read", `{"path":"later.txt"}`)); got != "hello" {
		t.Fatalf("the read after the write: %q", got)
	}
}

// Ten identical failing calls reach the server three times; a forged
// requestState, refused three times, does not stop the fresh start;
// WithRepeats(nil) turns the guard off.
func TestStdioRepeatsHoldsBackATightLoop(t *testing.T) {
	s := start(t)
	var last map[string]any
	for range 10 {
		last = envelopeOf(t, s.call("fs_read", `{"path":"missing.txt"}`))
	}
	if !strings.Contains(last["message"].(string), "(read 3)") {
		t.Fatalf("the server saw more than 3 of 10 identical failing calls: %v", last)
	}
	for range 3 {
		resp := s.request("tools/call", `{"name":"fs_write","arguments":{"path":"a"},"requestState":"forged"}`)
		if env := envelopeOf(t, resp); env["error_type"] != "validation_error" {
			t.Fatalf("a forged state: %v", env)
		}
	}
	if textOf(t, s.call("fs_write", `{"path":"a"}`)) != "written" {
		t.Fatal("the fresh start a refused state recommends did not run")
	}

	off := start(t, proxy.WithRepeats(nil))
	for range 5 {
		last = envelopeOf(t, off.call("fs_read", `{"path":"missing.txt"}`))
	}
	if !strings.Contains(last["message"].(string), "(read 5)") {
		t.Fatalf("off: %v", last)
	}
}

// fsUpstream is a streamable HTTP server with fs_read and fs_write that
// gives each initialize a session of its own, and counts the reads that
// reach it.
func fsUpstream(t *testing.T, stateless bool) (*httptest.Server, *files) {
	var f files
	var sessions atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m childMsg
		b, _ := io.ReadAll(r.Body)
		if json.Unmarshal(b, &m) != nil || m.Method == "" {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch m.Method {
		case "initialize":
			if !stateless {
				w.Header().Set("Mcp-Session-Id", fmt.Sprint("s-", sessions.Add(1)))
			}
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"up","version":"1"}}}`, m.ID)
		case "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"fs_read","inputSchema":{"type":"object"}},{"name":"fs_write","inputSchema":{"type":"object"}}]}}`, m.ID)
		case "tools/call":
			text, isError, _ := f.call(m.Params.Name, m.Params.Arguments)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%q}],"isError":%v}}`, m.ID, text, isError)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &f
}

// Over HTTP, one session's failures never change another session's
// answer; new credentials start over; calls without a session (a
// stateless server) are never held back.
func TestHTTPRepeatsScopesCountsToTheSession(t *testing.T) {
	up, _ := fsUpstream(t, false)
	url := proxyFor(t, up.URL)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	session := func() string {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header.Get("Mcp-Session-Id")
	}
	a, b := session(), session()
	if a == "" || a == b {
		t.Fatalf("sessions %q and %q", a, b)
	}
	read := func(session, auth string) map[string]any {
		_, body := post(t, url, callBody(2, "fs_read", `{"path":"x"}`), "Mcp-Session-Id", session, "Authorization", auth)
		return envelopeOf(t, lastData(t, body))
	}
	for range 3 {
		read(a, "Bearer 1")
	}
	if env := read(a, "Bearer 1"); env["error_type"] != "execution_failed" {
		t.Fatalf("session a's 4th identical call ran: %v", env)
	}
	if env := read(b, "Bearer 1"); env["error_type"] != "not_found" {
		t.Fatalf("session b's call was held back by a's failures: %v", env)
	}
	if env := read(a, "Bearer 2"); env["error_type"] != "not_found" {
		t.Fatalf("new credentials did not start over: %v", env)
	}

	stateless, f := fsUpstream(t, true)
	url = proxyFor(t, stateless.URL)
	for range 6 {
		_, body := post(t, url, callBody(2, "fs_read", `{"path":"x"}`))
		envelopeOf(t, lastData(t, body))
	}
	f.mu.Lock()
	if f.reads != 6 {
		t.Fatalf("calls with neither a session nor credentials were held back: %d of 6 ran", f.reads)
	}
	f.mu.Unlock()
	// Without a session (MCP 2026-07-28, a stateless server), the
	// credentials name the caller.
	for range 4 {
		_, body := post(t, url, callBody(2, "fs_read", `{"path":"x"}`), "Authorization", "Bearer alice")
		envelopeOf(t, lastData(t, body))
	}
	_, body := post(t, url, callBody(2, "fs_read", `{"path":"x"}`), "Authorization", "Bearer bob")
	if env := envelopeOf(t, lastData(t, body)); env["error_type"] != "not_found" {
		t.Fatalf("bob was held back by alice's failures: %v", env)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.reads != 6+3+1 {
		t.Fatalf("%d reads reached the server, want 6 anonymous, 3 of alice's 4, 1 of bob's", f.reads)
	}
}
