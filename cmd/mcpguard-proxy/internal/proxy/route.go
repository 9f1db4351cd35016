package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	"github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// rpc.ReadClient forwards the client's messages to the child, noting the
// requests it must see answered.
func (s *Stdio) readClient(ctx context.Context, in io.Reader) error {
	lr := rpc.NewLineReader(in, s.g.o.maxMessage)
	for {
		line, oversize, err := lr.Next()
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
	m, err := rpc.ReadClient(line) // read once, as every server reads it (package rpc)
	if err != nil {
		logRefused(ctx, s.g.o.logger, line, err)
		s.send(refusal(line, &m, err))
		return
	}
	switch {
	case m.IsRequest():
		s.clientRequest(ctx, line, &m)
	case m.Method == "notifications/initialized":
		s.mu.Lock()
		s.inited = bytes.Clone(line)
		s.mu.Unlock()
		s.toChild(ctx, line)
	case m.Method == "notifications/cancelled":
		s.cancelledByClient(ctx, m.Params)
	default: // notifications, and answers to the server's requests
		s.toChild(ctx, line)
	}
}

// cancelledByClient forgets a request the client cancelled, and tells
// the server under the id the server knows it by: MCP says the server
// need not answer it, and the client ignores an answer, so the proxy must
// not answer it either when the timeout passes. A cancellation of a
// request not in flight is dropped.
func (s *Stdio) cancelledByClient(ctx context.Context, params []byte) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	_ = json.Unmarshal(params, &p)
	var kb [64]byte
	k, ok := rpc.AppendIDKey(kb[:0], p.RequestID)
	if !ok {
		return
	}
	s.mu.Lock()
	r := s.byClient(k)
	holds := r != nil && r.call != nil && !r.call.taskResult // a tasks/result holds no slot
	if holds {
		// The server may still be running the call: it keeps its slot
		// until the server answers (to no one) or the proxy stops waiting.
		r.gone = true
	}
	s.mu.Unlock()
	if r == nil {
		return
	}
	if !holds {
		s.take(r.n)
		s.finish(r)
	}
	r.tr.cancelled() // no answer will come: none is sent
	s.toChild(ctx, cancelled(r.up, "the client cancelled the request"))
}

// clientTooLarge answers a request over the bound by the id its start names.
func (s *Stdio) clientTooLarge(ctx context.Context, prefix []byte) {
	id, method := rpc.Peek(prefix)
	safe.Log(ctx, s.g.o.logger, slog.LevelWarn, "mcpguard-proxy: dropped a client message over the size bound",
		slog.String(logkey.Method, method), slog.Int(logkey.Limit, s.g.o.maxMessage))
	if !rpc.HasID(id) {
		return
	}
	r := &request{method: method, clientID: id}
	if s.g.in != nil && method != "" {
		r.tr = s.g.trace(ctx, &rpc.Message{ID: id, Method: method}, s.peer())
	}
	if method == "tools/call" {
		s.reply(r, s.g.requestTooLarge(ctx, &call{id: id}), nil)
		return
	}
	s.reply(r, rpcError(id, -32600, "the message is larger than the proxy's limit of "+sizeText(s.g.o.maxMessage)), nil)
}

func (s *Stdio) clientRequest(ctx context.Context, line []byte, m *rpc.Message) {
	r := s.newRequest(m.Method)
	ck, ok := rpc.AppendIDKey(r.ckBuf[:0:len(r.ckBuf)], m.ID)
	if !ok {
		logRefused(ctx, s.g.o.logger, line, nil)
		s.send(refusal(line, m, nil))
		return
	}
	r.ck = ck
	r.clientID = append(r.idBuf[:0:len(r.idBuf)], m.ID...) // a copy, in r unless long

	// held, when not nil, holds the call a limit refused (hold.go).
	var held func(context.Context) []byte
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
		if m.Quick {
			r.call = &r.callv
			s.g.quickCall(r.call, m, r.clientID) // the id is the request's copy
		} else {
			r.call = newCall(m.ID, m.Params)
		}
		s.listTools(ctx, r.call)
		r.call.caller = stdioCaller // the one client of a stdio proxy
		var refusal []byte
		if refusal, held = s.g.admitOrHold(ctx, r.call, "stdio"); refusal != nil {
			s.reply(r, refusal, nil)
			return
		}
	case "tasks/result": // answered as the call that created the task (tasks.go)
		r.call = s.g.taskCall(m.ID, m.Params, "")
	}
	r.up, r.n = s.g.ids.AppendNext(r.upBuf[:0])
	s.mu.Lock()
	dup := s.byClient(ck) != nil
	full := len(s.flight) >= maxInFlight
	if !dup && !full {
		s.flight = append(s.flight, r)
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
	var sent bool
	switch {
	case held != nil:
		s.holdToChild(ctx, r, m, held)
		sent = true
		s.exp.addAt(r.n, r.call.start.Add(s.g.o.timeout))
	case r.call != nil && !r.call.taskResult:
		sent = s.callToChild(ctx, r.up, r.call, m) // what the proxy checked, as the proxy encodes it
		// After the write, off the call's path: an answer that comes first
		// leaves a deadline that finds nothing in flight.
		s.exp.addAt(r.n, r.call.start.Add(s.g.o.timeout))
	default:
		sent = s.toChild(ctx, rpc.WithID(line, m, r.up))
	}
	if !sent {
		if r := s.take(r.n); r != nil {
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
func (s *Stdio) expire(ctx context.Context, n uint64) {
	s.mu.Lock()
	r := s.minted(n)
	gone := r != nil && r.gone
	if r != nil && !gone {
		r.gone = true
	}
	s.mu.Unlock()
	if r != nil && !gone {
		// The proxy waits one more timeout for the server to stop, holding
		// the call's slot, and then for good.
		s.exp.add(n, s.g.o.timeout)
	}
	switch {
	case r == nil:
	case gone:
		if r := s.take(n); r != nil {
			s.finish(r)
		}
	default:
		s.reply(r, s.g.timedOut(r.tr.context(ctx), r.call), nil)
		s.toChild(ctx, cancelled(r.up, "mcpguard-proxy: timed out"))
	}
}

// cancelled is the notification that cancels the request id, for why.
func cancelled(id []byte, why string) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`), id...)
	w, _ := json.Marshal(why)
	return append(append(append(b, `,"reason":`...), w...), "}}"...)
}

// toChild forwards msg to the current child, waiting for one that is
// restarting. It reports false when none took it.
func (s *Stdio) toChild(ctx context.Context, msg []byte) bool {
	c := s.current(ctx)
	return c != nil && c.write(msg) == nil
}

// callToChild sends the tools/call m, read as c, to the current child
// under the minted id up, as upstreamCall encodes it: written as the
// writer copies it when its params need no formatting.
func (s *Stdio) callToChild(ctx context.Context, up []byte, c *call, m *rpc.Message) bool {
	params := c.upstreamParams(m.Params)
	if !m.Formatted() || !same(params, m.Params) {
		return s.toChild(ctx, upstreamCall(up, c, m))
	}
	ch := s.current(ctx)
	return ch != nil && ch.w.writeCall(up, params) == nil
}

// readChild forwards the child's messages to the client until it closes
// its stdout.
func (s *Stdio) readChild(ctx context.Context, c *child, stdout io.Reader) {
	lr := rpc.NewLineReader(stdout, s.g.o.maxMessage)
	for {
		line, oversize, err := lr.Next()
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
	m, err := rpc.Parse(line)
	if err != nil {
		safe.Log(ctx, s.g.o.logger, slog.LevelWarn, "mcpguard-proxy: dropped a server line that is not a JSON-RPC message",
			slog.Int(logkey.Bytes, len(line)))
		return
	}
	if !m.IsResponse() {
		s.send(s.g.serverMessage(&s.g.tools, m.Method, line)) // the server's requests and notifications, untouched but a task's status text
		return
	}
	n, ours := s.g.ids.Minted(m.ID)
	if ours && n == c.reinit {
		s.reinitialized(ctx, c)
		return
	}
	var r *request
	if ours {
		r = s.take(n)
	}
	if r == nil {
		safe.Log(ctx, s.g.o.logger, slog.LevelWarn, "mcpguard-proxy: dropped a server response to an id that is not in flight",
			slog.String(logkey.RequestID, safe.Value(string(m.ID))))
		return
	}
	s.finish(r)
	if r.own != nil { // the proxy's own tools/list
		if l := r.listing; l != nil {
			l.more = false
			if len(m.Result) > 0 {
				if l.cursor == "" {
					l.gen = s.g.tools.gen.Load() // the child's stdout is in order: a change it notified came first
				}
				l.more = s.g.ownPage(&s.g.tools, &l.ownListing, m.Result)
			}
		}
		close(r.own)
	}
	if r.gone {
		return // answered already (timed out), or cancelled: the client reads no answer
	}
	switch {
	case r.call != nil:
		out := s.g.answer(r.tr.context(ctx), r.call, line, &m)
		if same(out, line) {
			s.replyWithID(r, line, &m)
		} else {
			s.reply(r, out, nil)
		}
		s.recycle(r)
		return
	case r.method == "tools/list" && len(m.Result) > 0:
		shown := s.g.learn(&s.g.tools, s.g.tools.gen.Load(), m.Result) // the child's stdout is in order: a change it notified came first
		if out := s.g.listAnswer(r.clientID, m.Result, shown); out != nil {
			s.reply(r, out, nil) // without the tools the pins hold back (pin.go)
			return
		}
	case r.method == "initialize" && r.tr != nil:
		s.negotiated(m.Result)
	}
	if len(m.Error) > 0 {
		if red := s.g.redactedRPCError(s.g.o.redactor, r.clientID, m.Error); red != nil {
			s.reply(r, red, nil)
			return
		}
	}
	out := rpc.WithID(line, &m, r.clientID) // the client's id, as the client wrote it
	if safe := s.g.relayedTask(r.method, out); !same(safe, out) {
		s.reply(r, safe, nil)
		return
	}
	s.reply(r, out, &m)
}

// reinitialized completes a restarted child's initialization.
func (s *Stdio) reinitialized(ctx context.Context, c *child) {
	s.mu.Lock()
	c.reinit = 0
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
	id, method := rpc.Peek(prefix)
	safe.Log(ctx, s.g.o.logger, slog.LevelWarn, "mcpguard-proxy: dropped a server message over the size bound",
		slog.String(logkey.Method, method), slog.Int(logkey.Limit, s.g.o.maxMessage))
	n, ok := s.g.ids.Minted(id)
	if method != "" || !ok {
		return
	}
	r := s.take(n)
	if r == nil {
		return
	}
	s.finish(r)
	if r.gone {
		return
	}
	if r.call != nil {
		s.reply(r, s.g.tooLarge(ctx, r.call), nil)
		return
	}
	s.reply(r, rpcError(r.clientID, -32603, "the server's answer is larger than the proxy's limit of "+sizeText(s.g.o.maxMessage)), nil)
}

// listTools has the proxy ask the server for its tools itself, every
// page (listing.go), before the call c when it cannot check it otherwise:
// no listing came since the tools last changed, or c's tool is not among
// those the pages read so far list. Declared schemas are checked, unknown
// tools answered and pins enforced against the tools the server lists
// now. The call waits up to listWait (or the timeout) for the listing,
// all its pages.
func (s *Stdio) listTools(ctx context.Context, c *call) {
	if !s.g.tools.unseen(c.tool) || s.g.tools.lists.Add(1) > 1 {
		return // once a change: a server that does not answer delays one call, not every one
	}
	t := time.NewTimer(min(listWait, s.g.o.timeout))
	defer t.Stop()
	l := &stdioListing{}
	for more := true; more; {
		up, n := s.g.ids.AppendNext(make([]byte, 0, rpc.MintedLen))
		answered := make(chan struct{})
		s.mu.Lock()
		s.flight = append(s.flight, &request{method: "tools/list", up: up, n: n, own: answered, listing: l, gone: true})
		s.mu.Unlock()
		s.toChild(ctx, ownListRequest(up, l.cursor, c.params))
		select {
		case <-answered:
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
		more = l.more
	}
}

// stdioListing is the proxy's own listing over stdio: the read loop reads
// its pages, and says whether to ask for another (more) before it closes
// the page's request's own channel.
type stdioListing struct {
	ownListing
	more bool
}

// listWait bounds how long the first tool call waits for the proxy's own
// tools/list; past it the call goes on unchecked.
const listWait = 5 * time.Second

// upstreamCall is the tools/call request m, read as c, that goes upstream
// under the minted id up: rpc.OwnCall's encoding of its params, with an
// opened requestState (seal.go).
func upstreamCall(up []byte, c *call, m *rpc.Message) []byte {
	params := c.upstreamParams(m.Params)
	return rpc.OwnCall(up, params, m.Formatted() && same(params, m.Params))
}
