package proxy

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// This file rewrites the answer to a tool call that arrives on a GET
// stream. Over streamable HTTP a server may end a call's POST event
// stream before it answers (SEP-1699 polling); the client then resumes
// with a GET carrying Last-Event-ID, and the answer comes there. The proxy
// remembers, per MCP session, the calls whose POST stream ended
// unanswered, and rewrites a response event on a GET stream of that
// session whose id is one of them, exactly as on the POST.

// Bounds of what the proxy remembers for resumption: a session's calls
// awaiting an answer on a GET stream, the sessions it remembers calls for,
// and how long a call is remembered. A call beyond a bound is not
// remembered (and logged): its answer, if it comes on a GET, is passed
// through as the server sent it.
const (
	maxResumableCalls    = 64
	maxResumableSessions = 4096
	resumableFor         = 10 * time.Minute
)

// resumable is the HTTP proxy's memory of calls awaiting an answer on a
// GET stream. Its zero value is ready to use.
type resumable struct {
	mu       sync.Mutex
	sessions map[string]map[string]resumed // session -> idKey -> call
}

type resumed struct {
	call  *call  // nil for a request other than tools/call
	id    []byte // the id as the client wrote it
	until time.Time
}

// awaitResume remembers x's call, whose POST stream ended before the
// answer, until its answer comes on a GET stream of its session.
func (h *HTTP) awaitResume(ctx context.Context, x *exchange) {
	if x.session == "" {
		return // no session: no GET stream to resume on
	}
	now := time.Now()
	rs := &h.resume
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.sessions == nil {
		rs.sessions = map[string]map[string]resumed{}
	}
	calls, ok := rs.sessions[x.session]
	if !ok && len(rs.sessions) >= maxResumableSessions {
		rs.sweep(now)
	}
	if !ok && len(rs.sessions) < maxResumableSessions {
		calls = map[string]resumed{}
		rs.sessions[x.session] = calls
	}
	if len(calls) >= maxResumableCalls {
		expire(calls, now)
	}
	if calls == nil || len(calls) >= maxResumableCalls {
		safe.Log(ctx, h.g.o.logger, slog.LevelWarn,
			"mcpguard-proxy: too many requests await an answer on a resumed stream; this one's will be dropped",
			slog.Int(logkey.Limit, maxResumableCalls))
		return
	}
	calls[x.upKey] = resumed{call: x.call, id: x.id, until: now.Add(resumableFor)}
}

// sweep forgets expired calls, and sessions left with none.
func (rs *resumable) sweep(now time.Time) {
	for s, calls := range rs.sessions {
		if expire(calls, now); len(calls) == 0 {
			delete(rs.sessions, s)
		}
	}
}

func expire(calls map[string]resumed, now time.Time) {
	for id, r := range calls {
		if now.After(r.until) {
			delete(calls, id)
		}
	}
}

// lookup returns the request of session awaiting the answer id. It
// stays remembered until it expires, so that an answer replayed on a
// later resumption is rewritten as well.
func (rs *resumable) lookup(session string, id []byte) (resumed, bool) {
	key, ok := idKey(id)
	if !ok {
		return resumed{}, false
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	r, ok := rs.sessions[session][key]
	if !ok || time.Now().After(r.until) {
		return resumed{}, false
	}
	return r, true
}

// resuming marks a GET of an MCP session, whose event stream may carry
// answers to calls awaiting resumption.
func (h *HTTP) resuming(r *http.Request) *http.Request {
	sid := r.Header.Get("Mcp-Session-Id")
	if r.Method != http.MethodGet || sid == "" {
		return r
	}
	x := &exchange{session: sid, resume: true, state: &answered{}}
	return r.WithContext(context.WithValue(r.Context(), exchangeKey{}, x))
}

// resumedAnswer rewrites a message of a GET stream that answers a call
// awaiting resumption; anything else comes back as it is.
func (h *HTTP) resumedAnswer(ctx context.Context, x *exchange, b []byte) []byte {
	m, err := parse(b)
	if err != nil || !m.isResponse() {
		return h.g.relayedTask(m.Method, b) // a task's status text is made safe (tasks.go)
	}
	rq, ok := h.resume.lookup(x.session, m.ID)
	if !ok {
		return b
	}
	out := b
	if rq.call != nil {
		out = h.g.answer(ctx, rq.call, b, &m)
		h.g.done(rq.call) // the server is done with it: its slot is free
	} else if len(m.Error) > 0 {
		if red := h.g.redactedRPCError(rq.id, m.Error); red != nil {
			return red
		}
	}
	if same(out, b) {
		out = withID(b, &m, rq.id)
	}
	return out
}

// resumedTooLarge answers a call awaiting resumption whose answer on the
// GET stream was over the bound, as the POST path does; nil (the message
// dropped) for anything else.
func (h *HTTP) resumedTooLarge(ctx context.Context, x *exchange, id []byte) []byte {
	rq, ok := h.resume.lookup(x.session, id)
	if !ok {
		return nil
	}
	if rq.call == nil {
		return rpcError(rq.id, -32603, "the server's answer is larger than the proxy's limit of "+sizeText(h.g.o.maxMessage))
	}
	return h.g.tooLarge(ctx, rq.call)
}
