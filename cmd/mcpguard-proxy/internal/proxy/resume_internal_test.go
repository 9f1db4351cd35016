package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	"github.com/mcpguard/mcpguard/core/limit"
)

// TestResumableIsBounded: a session remembers at most maxResumableCalls
// calls awaiting resumption, the proxy at most maxResumableSessions
// sessions, and an expired call is forgotten (making room again).
func TestResumableIsBounded(t *testing.T) {
	h := NewHTTP("http://127.0.0.1:1/mcp", WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	ctx := context.Background()
	x := func(session string, id int) *exchange {
		k, _ := rpc.IDKey([]byte(strconv.Itoa(id)))
		return &exchange{id: []byte(strconv.Itoa(id)), upKey: k, call: &call{tool: "t"}, session: session}
	}
	for i := range maxResumableCalls + 10 {
		h.awaitResume(ctx, x("a", i))
	}
	if n := len(h.resume.sessions["a"]); n != maxResumableCalls {
		t.Fatalf("%d calls remembered, want %d", n, maxResumableCalls)
	}
	found := func(session, id string) bool { _, ok := h.resume.lookup(session, []byte(id)); return ok }
	if !found("a", "0") || found("a", strconv.Itoa(maxResumableCalls)) {
		t.Errorf("want the first calls remembered, not those past the bound")
	}
	if found("b", "0") {
		t.Errorf("a call found in another session")
	}
	for id, r := range h.resume.sessions["a"] {
		r.until = time.Now().Add(-time.Second)
		h.resume.sessions["a"][id] = r
	}
	if found("a", "0") {
		t.Errorf("an expired call was found")
	}
	h.awaitResume(ctx, x("a", 1000))
	if n := len(h.resume.sessions["a"]); n != 1 || !found("a", "1000") {
		t.Errorf("the expired calls were not forgotten: %d remembered", n)
	}
	h.awaitResume(ctx, x("", 1)) // no session: nothing to resume on
	for i := range maxResumableSessions + 10 {
		h.awaitResume(ctx, x("s"+strconv.Itoa(i), 1))
	}
	if n := len(h.resume.sessions); n != maxResumableSessions {
		t.Errorf("%d sessions remembered, want %d", n, maxResumableSessions)
	}
}

// TestForgottenAnswersAreDropped: past the bound of the requests the
// proxy remembers, a server's answer replayed on a GET stream to a call
// the proxy forgot is dropped, never passed as the server wrote it; the
// answers to the calls it remembers are rewritten.
func TestForgottenAnswersAreDropped(t *testing.T) {
	var mu sync.Mutex
	var answers []string // every answer, replayed to every GET
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		mu.Lock()
		defer mu.Unlock()
		if r.Method == http.MethodGet {
			for _, a := range answers {
				fmt.Fprintf(w, "data: %s\n\n", a)
			}
			return
		}
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &m)
		a := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"dial postgres://app:hunter2@db/prod"}}`, m.ID)
		answers = append(answers, a)
		fmt.Fprintf(w, "data: %s\n\n", a)
	}))
	t.Cleanup(up.Close)
	h := NewHTTP(up.URL, WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	h.sent.size = 4
	p := httptest.NewServer(h)
	t.Cleanup(p.Close)
	do := func(method, body string) string {
		req, _ := http.NewRequest(method, p.URL, strings.NewReader(body))
		req.Header.Set("Mcp-Session-Id", "s1")
		req.Header.Set("Authorization", "Bearer t")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	const calls = 10
	for i := 1; i <= calls; i++ {
		if got := do(http.MethodPost, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"tools/call","params":{"name":"q","arguments":{}}}`); strings.Contains(got, "hunter2") {
			t.Fatalf("the answer on the POST: %s", got)
		}
	}
	got := do(http.MethodGet, "")
	if strings.Contains(got, "hunter2") || strings.Contains(got, "mcpguard-") {
		t.Fatalf("a replayed answer passed as the server wrote it: %s", got)
	}
	if n := strings.Count(got, `"isError":true`); n != h.sent.size {
		t.Errorf("%d replayed answers rewritten, want the %d remembered: %s", n, h.sent.size, got)
	}
}

// TestLongSessionsAreNotRemembered: a session ID longer than any server
// mints (a client's header can be a megabyte) is not kept.
func TestLongSessionsAreNotRemembered(t *testing.T) {
	h := NewHTTP("http://127.0.0.1:1/mcp", WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	long := strings.Repeat("s", maxSessionID+1)
	x := &exchange{id: []byte("1"), upKey: "n1", call: &call{tool: "t"}, session: long}
	h.sent.record(x, 1)
	h.awaitResume(context.Background(), x)
	if _, ok := h.sent.lookup(long, 1); ok || len(h.resume.sessions) != 0 {
		t.Errorf("a session ID of %d bytes was kept", len(long))
	}
	x.session = "s1"
	if h.sent.record(x, 1); func() bool { _, ok := h.sent.lookup("s1", 1); return !ok }() {
		t.Errorf("a session ID of 2 bytes was not kept")
	}
}

// maxCallerName is how long a caller's name may be: core/limit bounds it.
const maxCallerName = 64

// TestSessionTablesAreBounded: the HTTP proxy keeps the tools of at most
// maxToolSessions callers, forgetting the one used least recently, and
// forgets a session's tools when the session ends: the upstream took the
// client's DELETE, or answered 404.
func TestSessionTablesAreBounded(t *testing.T) {
	var s sessionTables
	first := s.of("first")
	for i := range maxToolSessions + 10 {
		s.of("s" + strconv.Itoa(i))
		if i == maxToolSessions/2 {
			s.of("first") // used again: not the least recent
		}
	}
	if n := len(s.m); n != maxToolSessions {
		t.Errorf("%d sessions' tools kept, want %d", n, maxToolSessions)
	}
	if s.lookup("first") != first || s.lookup("s0") != nil {
		t.Errorf("want the tables used least recently forgotten first")
	}
	// A table is kept under its caller's name, which is bounded whatever
	// session ID a client sends.
	if n := len(limit.Caller{Session: strings.Repeat("x", 1<<20)}.Name()); n > 2*maxCallerName {
		t.Errorf("a megabyte-long session ID is named in %d bytes", n)
	}

	status := http.StatusOK
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":"mcpguard-x-1","result":{"tools":[]}}`)
	}))
	t.Cleanup(up.Close)
	h := NewHTTP(up.URL, WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	p := httptest.NewServer(h)
	t.Cleanup(p.Close)
	for _, tc := range []struct {
		method string
		status int
	}{{http.MethodDelete, http.StatusOK}, {http.MethodPost, http.StatusNotFound}} {
		s1 := limit.Caller{Session: "s1", Credential: "Bearer t"}.Name()
		h.tables.of(s1)
		status = tc.status
		req, _ := http.NewRequest(tc.method, p.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Mcp-Session-Id", "s1")
		req.Header.Set("Authorization", "Bearer t")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if h.tables.lookup(s1) != nil {
			t.Errorf("%s answered %d: the session's tools were kept", tc.method, tc.status)
		}
	}
}
