package proxy

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// readClient forwards the client's messages to the child, noting the
// requests it must see answered.
func (s *Stdio) readClient(ctx context.Context, in io.Reader) error {
	lr := newLineReader(in, s.g.o.maxMessage)
	for {
		line, oversize, err := lr.next()
		if err != nil {
			return err
		}
		if p := safe.Call(func() { s.fromClient(ctx, line, oversize) }); p != nil {
			safe.Log(ctx, s.g.o.logger, slog.LevelError, "mcpguard-proxy: recovered panic on a client message",
				slog.String(logkey.Panic, safe.Value(p)))
		}
	}
}

func (s *Stdio) fromClient(ctx context.Context, line []byte, oversize bool) {
	if oversize {
		s.clientTooLarge(ctx, line)
		return
	}
	m, err := parse(line)
	if err != nil {
		s.send(invalid(line))
		return
	}
	if s.refuseAmbiguous(ctx, line, &m) { // ambiguous.go
		return
	}
	switch {
	case m.isRequest():
		s.clientRequest(ctx, line, &m)
	case m.Method == "notifications/initialized":
		s.mu.Lock()
		s.inited = bytes.Clone(line)
		s.mu.Unlock()
		s.toChild(ctx, line)
	case m.Method == "notifications/cancelled":
		s.cancelledByClient(m.Params)
		s.toChild(ctx, line)
	default: // notifications, and answers to the server's requests
		s.toChild(ctx, line)
	}
}

// cancelledByClient forgets a request the client cancelled: MCP says the
// server need not answer it, and the client ignores an answer, so the
// proxy must not answer it either when the timeout passes.
func (s *Stdio) cancelledByClient(params []byte) {
	it, ok := newMembers(params)
	for ok {
		k, v, more := it.next()
		if !more {
			return
		}
		if keyIs(k, "requestId") {
			if r := s.take(v); r != nil {
				s.finish(r)
				r.tr.cancelled() // no answer will come: none is sent
			}
			return
		}
	}
}

// invalid answers a client message that is not a JSON-RPC object.
func invalid(line []byte) []byte {
	if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '[' {
		return rpcError(nil, -32600, "JSON-RPC batches are not supported: send one message a line")
	}
	return rpcError(nil, -32700, "parse error: each line must be one JSON-RPC message")
}

// clientTooLarge answers a request over the bound by the id its start names.
func (s *Stdio) clientTooLarge(ctx context.Context, prefix []byte) {
	id, method := peek(prefix)
	safe.Log(ctx, s.g.o.logger, slog.LevelWarn, "mcpguard-proxy: dropped a client message over the size bound",
		slog.String(logkey.Method, method), slog.Int(logkey.Limit, s.g.o.maxMessage))
	if !hasID(id) {
		return
	}
	r := &request{method: method}
	if s.g.in != nil && method != "" {
		r.tr = s.g.trace(ctx, &message{ID: id, Method: method}, s.peer())
	}
	if method == "tools/call" {
		s.reply(r, s.g.requestTooLarge(ctx, &call{id: id}), nil)
		return
	}
	s.reply(r, rpcError(id, -32600, "the message is larger than the proxy's limit of "+sizeText(s.g.o.maxMessage)), nil)
}

func (s *Stdio) clientRequest(ctx context.Context, line []byte, m *message) {
	r := &request{method: m.Method}
	if s.g.in != nil {
		r.tr = s.g.trace(ctx, m, s.peer())
		ctx = r.tr.context(ctx) // the incident log records carry the trace
	}
	switch m.Method {
	case "initialize":
		s.mu.Lock()
		s.init = bytes.Clone(line)
		s.mu.Unlock()
	case "tools/call":
		r.call = newCall(m.ID, m.Params)
		if refusal := s.g.admit(ctx, r.call, "stdio"); refusal != nil {
			s.reply(r, refusal, nil)
			return
		}
	}
	k := idKey(m.ID)
	s.mu.Lock()
	_, dup := s.pending[k]
	full := len(s.pending) >= maxInFlight
	if !dup && !full {
		s.pending[k] = r
	}
	s.mu.Unlock()
	switch {
	case dup:
		s.finish(r)
		s.reply(r, rpcError(m.ID, -32600, "a request with this id is already in flight"), nil)
		return
	case full:
		s.finish(r)
		s.refuseFull(ctx, m.ID, r)
		return
	}
	if r.call != nil {
		id := bytes.Clone(m.ID)
		r.timer = time.AfterFunc(s.g.o.timeout, func() { s.expire(ctx, id) })
	}
	if !s.toChild(ctx, line) {
		if r := s.take(m.ID); r != nil {
			s.finish(r)
			s.unavailable(ctx, m.ID, r)
		}
	}
}

// maxInFlight bounds the client's requests the proxy remembers until the
// server answers them: a client that never stops asking, of a server that
// never answers, cannot make the table grow without limit.
const maxInFlight = 4096

// refuseFull answers a request beyond maxInFlight.
func (s *Stdio) refuseFull(ctx context.Context, id []byte, r *request) {
	const why = "too many requests are in flight; wait for answers before sending more"
	if r.call != nil {
		s.reply(r, s.g.render(ctx, r.call, s.g.r.Error(ctx, r.call.core(), limit.Refusal(why, time.Second))), nil)
		return
	}
	s.reply(r, rpcError(id, -32603, why), nil)
}

// unavailable answers a request no child could take.
func (s *Stdio) unavailable(ctx context.Context, id []byte, r *request) {
	if r.call != nil {
		s.reply(r, s.g.unavailable(ctx, r.call), nil)
		return
	}
	s.reply(r, rpcError(id, -32603, "the server is restarting; repeat the request in a moment"), nil)
}

// expire answers a tool call the child has not answered in time, and
// tells the child to stop working on it.
func (s *Stdio) expire(ctx context.Context, id []byte) {
	r := s.take(id)
	if r == nil {
		return
	}
	s.finish(r)
	s.reply(r, s.g.timedOut(r.tr.context(ctx), r.call), nil)
	s.toChild(ctx, cancelled(id))
}

// cancelled is the notification that cancels the request id.
func cancelled(id []byte) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`), id...)
	return append(b, `,"reason":"mcpguard-proxy: timed out"}}`...)
}

// toChild forwards msg to the current child, waiting for one that is
// restarting. It reports false when none took it.
func (s *Stdio) toChild(ctx context.Context, msg []byte) bool {
	c := s.current(ctx)
	return c != nil && c.write(msg) == nil
}

// readChild forwards the child's messages to the client until it closes
// its stdout.
func (s *Stdio) readChild(ctx context.Context, c *child, stdout io.Reader) {
	lr := newLineReader(stdout, s.g.o.maxMessage)
	for {
		line, oversize, err := lr.next()
		if err != nil {
			return
		}
		if p := safe.Call(func() { s.fromChild(ctx, c, line, oversize) }); p != nil {
			safe.Log(ctx, s.g.o.logger, slog.LevelError, "mcpguard-proxy: recovered panic on a server message",
				slog.String(logkey.Panic, safe.Value(p)))
		}
	}
}

func (s *Stdio) fromChild(ctx context.Context, c *child, line []byte, oversize bool) {
	if oversize {
		s.childTooLarge(ctx, line)
		return
	}
	m, err := parse(line)
	if err != nil {
		safe.Log(ctx, s.g.o.logger, slog.LevelWarn, "mcpguard-proxy: dropped a server line that is not a JSON-RPC message",
			slog.Int(logkey.Bytes, len(line)))
		return
	}
	if !m.isResponse() {
		s.send(line) // the server's requests and notifications, untouched
		return
	}
	if c.reinit != "" && idKey(m.ID) == c.reinit {
		s.reinitialized(ctx, c)
		return
	}
	r := s.take(m.ID)
	if r == nil {
		safe.Log(ctx, s.g.o.logger, slog.LevelWarn, "mcpguard-proxy: dropped a server response to an id that is not in flight",
			slog.String(logkey.RequestID, safe.Value(string(m.ID))))
		return
	}
	s.finish(r)
	switch {
	case r.call != nil:
		out := s.g.answer(r.tr.context(ctx), r.call, line, &m)
		if same(out, line) {
			s.reply(r, out, &m)
		} else {
			s.reply(r, out, nil)
		}
	case r.method == "tools/list" && len(m.Result) > 0:
		s.g.learn(m.Result)
		s.reply(r, line, &m)
	case r.method == "initialize" && r.tr != nil:
		s.negotiated(m.Result)
		s.reply(r, line, &m)
	default:
		s.reply(r, line, &m)
	}
}

// reinitialized completes a restarted child's initialization.
func (s *Stdio) reinitialized(ctx context.Context, c *child) {
	s.mu.Lock()
	c.reinit = ""
	inited := s.inited
	s.mu.Unlock()
	if inited != nil {
		_ = c.write(inited)
	}
	s.setReady(true)
	safe.Log(ctx, s.g.o.logger, slog.LevelInfo, "mcpguard-proxy: the restarted server is initialized")
}

// childTooLarge answers the request an oversized answer was for.
func (s *Stdio) childTooLarge(ctx context.Context, prefix []byte) {
	id, method := peek(prefix)
	safe.Log(ctx, s.g.o.logger, slog.LevelWarn, "mcpguard-proxy: dropped a server message over the size bound",
		slog.String(logkey.Method, method), slog.Int(logkey.Limit, s.g.o.maxMessage))
	if method != "" || !hasID(id) {
		return
	}
	r := s.take(id)
	if r == nil {
		return
	}
	s.finish(r)
	if r.call != nil {
		s.reply(r, s.g.tooLarge(ctx, r.call), nil)
		return
	}
	s.reply(r, rpcError(id, -32603, "the server's answer is larger than the proxy's limit of "+sizeText(s.g.o.maxMessage)), nil)
}
