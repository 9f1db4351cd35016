package proxy

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"
)

// TestResumableIsBounded: a session remembers at most maxResumableCalls
// calls awaiting resumption, the proxy at most maxResumableSessions
// sessions, and an expired call is forgotten (making room again).
func TestResumableIsBounded(t *testing.T) {
	h := NewHTTP("http://127.0.0.1:1/mcp", WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	ctx := context.Background()
	x := func(session string, id int) *exchange {
		k, _ := idKey([]byte(strconv.Itoa(id)))
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
