package proxy

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	"github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// This file rewrites the answers that come on a stream other than their
// request's own POST stream. Over streamable HTTP a server may end a
// call's POST event stream before it answers (SEP-1699 polling): the
// client then resumes with a GET carrying Last-Event-ID, and the answer
// comes there. A server with an event store also replays, to such a GET,
// an answer it already sent on the POST stream. Either way the answer
// carries the id the proxy minted for the request, and the proxy rewrites
// it exactly as on the POST: it remembers every request it sent upstream
// (sentRequests), and the calls whose POST stream ended unanswered
// (resumable), which hold their concurrency slot until that answer. A
// response on such a stream whose request the proxy does not remember
// (forgotten, past a bound, another session's, an id it never minted) is
// dropped: it never reaches the client as the server wrote it.

// Bounds of what the proxy remembers for resumption: a session's calls
// awaiting an answer on a GET stream, the sessions it remembers calls for,
// and how long a call is remembered. A call beyond a bound is not
// remembered here (and logged): its answer is rewritten from
// sentRequests while that remembers it, and its slot is held until its
// timeout.
const (
	maxResumableCalls    = 64
	maxResumableSessions = 4096
	resumableFor         = 10 * time.Minute
)

// Bounds of sentRequests: how many requests it remembers (the newest), and
// the arguments it keeps of each call (a call's longer arguments are not
// kept: an answer replayed to it is redacted as if it had sent none, so
// what it sent is redacted too). At most maxSent*maxKeptArgs bytes of
// arguments: 32 MiB.
const (
	maxSent     = 8192
	maxKeptArgs = 4 << 10
)

// sentRequests is the HTTP proxy's memory of the requests it sent
// upstream, by the counter of the id it minted for each: a ring, where
// the newest request takes the place of the one sent maxSent before it.
// Its zero value is ready to use.
type sentRequests struct {
	mu   sync.Mutex
	ring []sentRequest // made at the first request
	size int           // len(ring); maxSent unless a test sets it first
}

// sentRequest is what the proxy needs to rewrite an answer to a request
// that comes on another stream than the request's.
type sentRequest struct {
	n       uint64 // the minted id's counter; 0 for none
	session string
	id      []byte // the client's id, as the client wrote it
	method  string
	call    *call // tools/call and tasks/result: a copy (replayed)
	until   time.Time
}

// record remembers the request x, sent upstream under the minted counter n.
func (sr *sentRequests) record(x *exchange, n uint64) {
	if !rememberable(x.session) {
		return
	}
	e := sentRequest{n: n, session: x.session, id: x.id, method: x.method, until: time.Now().Add(resumableFor)}
	if x.call != nil {
		e.call = x.call.replayed(len(x.call.args) <= maxKeptArgs)
	}
	sr.mu.Lock()
	defer sr.mu.Unlock()
	if sr.ring == nil {
		if sr.size <= 0 {
			sr.size = maxSent
		}
		sr.ring = make([]sentRequest, sr.size)
	}
	sr.ring[n%uint64(sr.size)] = e
}

// lookup returns the request of session the proxy sent under the minted
// counter n, if it remembers it.
func (sr *sentRequests) lookup(session string, n uint64) (sentRequest, bool) {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	if sr.ring == nil {
		return sentRequest{}, false
	}
	e := sr.ring[n%uint64(sr.size)]
	if e.n != n || e.session != session || time.Now().After(e.until) {
		return sentRequest{}, false
	}
	return e, true
}

// rememberable reports whether the proxy keeps what it knows of the MCP
// session: a session ID is visible ASCII, and one longer than maxSessionID
// was not minted by a server (a client can send a header of a megabyte);
// answers on another stream to its requests are then dropped.
func rememberable(session string) bool { return len(session) <= maxSessionID }

// replayed is a copy of c, the call as it went upstream, to rewrite an
// answer to it that comes on another stream: what rewriting reads, with
// c's arguments when withArgs, and never c's slot nor its place in the
// repeated-failure guard.
func (c *call) replayed(withArgs bool) *call {
	r := &call{id: c.id, tool: c.tool, start: c.start, state: c.state, hasState: c.hasState, opened: c.opened,
		taskResult: c.taskResult, task: c.task, plainArgs: c.plainArgs, session: c.session}
	if withArgs {
		r.args = c.args
	}
	r.settled.Store(true) // the guard counted the call when it was first answered
	return r
}

// resumable is the HTTP proxy's memory of calls awaiting an answer on a
// GET stream. Its zero value is ready to use.
type resumable struct {
	mu       sync.Mutex
	sessions map[string]map[string]resumed // session -> idKey -> call
}

type resumed struct {
	call   *call  // nil for a request other than tools/call
	id     []byte // the id as the client wrote it
	method string
	until  time.Time
}

// awaitResume remembers x's call, whose POST stream ended before the
// answer, until its answer comes on a GET stream of its session.
func (h *HTTP) awaitResume(ctx context.Context, x *exchange) {
	if x.session == "" || !rememberable(x.session) {
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
			"mcpguard-proxy: too many requests await an answer on a resumed stream; this one holds its slot until its timeout",
			slog.Int(logkey.Limit, maxResumableCalls))
		return
	}
	calls[x.upKey] = resumed{call: x.call, id: x.id, method: x.method, until: now.Add(resumableFor)}
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
	key, ok := rpc.IDKey(id)
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

// resuming marks a request other than a POST (a GET, whose event stream
// may carry answers to requests sent on other streams) with its session.
func (h *HTTP) resuming(r *http.Request) *http.Request {
	x := newExchange(r)
	return r.WithContext(context.WithValue(r.Context(), exchangeKey{}, x))
}

// requestOf returns the request of session that a response with the id
// id answers: a call awaiting resumption, whose slot its answer frees, or
// any request the proxy remembers sending.
func (h *HTTP) requestOf(session string, id []byte) (sentRequest, bool) {
	n, ok := h.g.ids.Minted(id)
	if !ok {
		return sentRequest{}, false // no id the proxy minted: it answers no request of the client's
	}
	s, ok := h.sent.lookup(session, n)
	if rq, pending := h.resume.lookup(session, id); pending {
		s, ok = sentRequest{id: rq.id, method: rq.method, call: rq.call}, true
		if rq.call != nil {
			h.g.done(rq.call) // the server is done with it: its slot is free
		}
	}
	if ok && s.call != nil {
		// A copy for each answer (the rewriting notes what it looked up in
		// it), checked against its session's tools.
		s.call = s.call.replayed(true)
		s.call.tools = h.tables.lookup(limit.Caller{Session: session}.Name())
	}
	return s, ok
}

// foreignAnswer handles a message of a stream that is no request's own
// (a GET's, or a notification's POST): a response there is rewritten as
// the answer to the request of the session it names, when the proxy
// remembers it, and dropped otherwise; anything else comes back as it is.
func (h *HTTP) foreignAnswer(ctx context.Context, session, caller string, b []byte) []byte {
	m, err := rpc.Parse(b)
	if err == nil && m.Method != "" {
		return h.g.serverMessage(h.tables.lookup(caller), m.Method, b) // a task's status text is made safe (tasks.go)
	}
	rq, ok := h.requestOf(session, m.ID)
	if err != nil || !ok {
		safe.Log(ctx, h.g.o.logger, slog.LevelWarn,
			"mcpguard-proxy: dropped a server message on a stream of its session that answers no request the proxy remembers",
			slog.Int(logkey.Bytes, len(b)))
		return nil
	}
	if rq.method == "tools/list" && len(m.Result) > 0 {
		if out := h.g.listAnswer(rq.id, m.Result, h.g.learn(nil, 0, m.Result)); out != nil {
			return out // reviewed by the pins as on the POST, learned by no table (pin.go)
		}
	}
	out, _ := h.answerFor(ctx, rq.call, rq.id, rq.method, b, &m)
	return out
}

// foreignTooLarge answers a request whose answer, on a stream other than
// its own, was over the bound, as the POST path does; nil (the message
// dropped) when the proxy does not remember the request.
func (h *HTTP) foreignTooLarge(ctx context.Context, session string, id []byte) []byte {
	rq, ok := h.requestOf(session, id)
	if !ok {
		return nil
	}
	if rq.call == nil {
		return rpcError(rq.id, -32603, "the server's answer is larger than the proxy's limit of "+sizeText(h.g.o.maxMessage))
	}
	return h.g.tooLarge(ctx, rq.call)
}
