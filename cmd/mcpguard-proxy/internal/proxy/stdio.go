package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	coreotel "github.com/mcpguard/mcpguard/core/otel"
	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// Backoff bounds of the child's restarts: the first restart waits
// minBackoff, each one after a short life waits twice as long, up to
// maxBackoff; a child that ran for stableRun starts the series again.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 10 * time.Second
	stableRun  = 30 * time.Second
	// readyWait is how long a message waits for a restarting child.
	readyWait = 10 * time.Second
	// stopGrace is how long the child has to exit once its stdin closed.
	stopGrace = 3 * time.Second
)

// Stdio proxies a client on one stream pair to a server it starts as a
// child process, over MCP's stdio transport.
type Stdio struct {
	g       *Guard
	command []string
	stderr  io.Writer

	out *writer
	mu  sync.Mutex
	// flight holds the requests in flight (at most maxInFlight of the
	// client's, and the proxy's own tools/list): found by the counter of
	// the id the proxy minted (package rpc), or by the client's id, in a scan.
	// A few are in flight at a time, and a scan touches less than the two
	// maps of strings it replaced, which cost a call more than they saved
	// (docs/proxy.md, "Latency end to end").
	flight  []*request
	child   *child
	ready   chan struct{}         // closed when child can take messages
	live    atomic.Pointer[child] // child while ready, else nil: what current reads first, without the lock
	init    []byte                // the client's initialize request, replayed to a restarted child
	inited  []byte                // the client's notifications/initialized
	version string                // the protocol version the child's initialize result names
	exp     *expiries[uint64]     // the deadlines of the tool calls in flight, by minted counter
	// spare is a tool call's request, answered, which the next request
	// reuses (newRequest).
	spare atomic.Pointer[request]
}

// newRequest is a request for method: the spare one, emptied but for its
// arguments' buffer, or a new one. A tool call then allocates nothing:
// a request and its arguments' copy allocated each call cost about 3.8 µs
// end to end, cold (docs/proxy.md, "Latency end to end").
func (s *Stdio) newRequest(method string) *request {
	r := s.spare.Swap(nil)
	if r == nil {
		return &request{method: method}
	}
	args := r.callv.args[:0]
	*r = request{method: method}
	r.callv.args = args
	return r
}

// recycle keeps r, a tool call taken from flight and answered, as the
// spare request, unless something may still hold it: its span, or a
// buffer grown large. (A task the call created keeps a copy of its
// arguments; the deadline it left finds nothing in flight.)
func (s *Stdio) recycle(r *request) {
	if r.call == &r.callv && r.tr == nil && cap(r.callv.args) <= maxKeptLine {
		s.spare.Store(r)
	}
}

// request is a client request in flight.
type request struct {
	method   string
	clientID []byte              // the id as the client wrote it, which its answer carries
	ck       []byte              // its key (appendIDKey)
	up       []byte              // the id the proxy minted for it, which the server sees
	n        uint64              // up's counter
	call     *call               // tools/call only
	callv    call                // where call is, for one allocation a request
	upBuf    [rpc.MintedLen]byte // where up is
	idBuf    [16]byte            // where clientID is, unless longer
	ckBuf    [24]byte            // where ck is, unless longer
	tr       *traced             // its span; nil when nothing records
	// gone: the client was answered (timed out) or cancelled the call;
	// the server's answer goes to no one, and the client's id names it no
	// longer. Guarded by Stdio.mu.
	gone bool
	own  chan struct{} // the proxy's own request (its tools/list), answered to no one: closed at its answer
	// listing is the proxy's own listing own asks a page of.
	listing *stdioListing
}

// child is one run of the server.
type child struct {
	cmd    *exec.Cmd
	w      writer // on its stdin
	reinit uint64 // the counter of the replayed initialize's id, answered to no one; 0: none
}

// NewStdio returns a proxy that runs command (the program and its
// arguments) as the server, restarting it when it exits unless
// [WithExitWithChild]; the child's stderr goes to stderr (os.Stderr when
// nil). It panics if command is empty.
func NewStdio(command []string, stderr io.Writer, opts ...Option) *Stdio {
	if len(command) == 0 {
		panic("proxy: NewStdio needs the server's command")
	}
	if stderr == nil {
		stderr = os.Stderr
	}
	return &Stdio{g: newGuard(opts...), command: command, stderr: stderr, ready: make(chan struct{})}
}

// Serve proxies in to the child and the child's answers to out until in
// ends, ctx is done or, with [WithExitWithChild], the child exits. It returns
// nil at the end of in.
func (s *Stdio) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.out = &writer{w: out}
	s.exp = newExpiries(func(n uint64) { s.expire(ctx, n) }, s.inFlight)
	defer s.exp.stop()
	supervised := make(chan error, 1)
	go func() { supervised <- s.supervise(ctx) }()
	read := make(chan error, 1)
	go func() { read <- s.readClient(ctx, in) }()
	var err error
	childDone := false
	select {
	case err = <-read:
	case err = <-supervised:
		childDone = true
	case <-ctx.Done():
		err = ctx.Err()
	}
	cancel() // which stops the child (see run)
	if !childDone {
		<-supervised
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}

// supervise runs the child, and again after each exit, with backoff.
func (s *Stdio) supervise(ctx context.Context) error {
	backoff := minBackoff
	for first := true; ; first = false {
		started := time.Now()
		err := s.run(ctx, first)
		if ctx.Err() != nil {
			return nil
		}
		if s.g.o.exitWithChild {
			return errChildExited{err}
		}
		if time.Since(started) > stableRun {
			backoff = minBackoff
		}
		safe.Log(ctx, s.g.o.logger, slog.LevelWarn, "mcpguard-proxy: the server exited; restarting it",
			slog.String(logkey.Error, errText(err)), slog.Duration(logkey.Duration, backoff))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

type errChildExited struct{ err error }

func (e errChildExited) Error() string { return "the server exited: " + errText(e.err) }

// ExitedWithChild reports whether err says Serve ended because the child
// exited, as it does with [WithExitWithChild].
func ExitedWithChild(err error) bool { return errors.As(err, new(errChildExited)) }

func errText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// run starts the child, reads it until it exits, and answers what it left
// unanswered. A restarted child (not the first) is initialized as the
// client initialized the first one.
func (s *Stdio) run(ctx context.Context, first bool) error {
	cmd := exec.Command(s.command[0], s.command[1:]...)
	cmd.Stderr = s.stderr
	if !s.g.o.rawStderr {
		lines := &redactedLines{w: s.stderr, red: s.g.o.redactor}
		defer lines.flush()
		cmd.Stderr = lines
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	// When the session ends, close the child's stdin, which asks it to
	// exit, and kill it if it has not within stopGrace.
	stopChild := context.AfterFunc(ctx, func() {
		_ = stdin.Close()
		time.AfterFunc(stopGrace, func() { _ = cmd.Process.Kill() })
	})
	defer stopChild()
	c := &child{cmd: cmd, w: writer{w: stdin}}
	s.mu.Lock()
	s.child = c
	var replay []byte
	if !first {
		replay = s.init
	}
	var up []byte
	if replay != nil {
		up, c.reinit = s.g.ids.AppendNext(make([]byte, 0, rpc.MintedLen))
	}
	s.mu.Unlock()
	if replay != nil {
		s.replay(c, replay, up)
	} else {
		s.setReady(true)
	}
	s.readChild(ctx, c, stdout)
	werr := cmd.Wait()
	s.mu.Lock()
	s.child = nil
	s.mu.Unlock()
	s.setReady(false)
	s.failPending(ctx, "the server exited: "+errText(werr))
	return werr
}

// replay initializes a restarted child as the client did the first one;
// its answer goes to no one (the client has it from the first child).
func (s *Stdio) replay(c *child, init, id []byte) {
	m, _ := rpc.Parse(init)
	_ = c.write(rpc.WithID(init, &m, id))
}

func (s *Stdio) setReady(ready bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ready {
		s.live.Store(s.child)
	} else {
		s.live.Store(nil)
	}
	select {
	case <-s.ready:
		if !ready {
			s.ready = make(chan struct{})
		}
	default:
		if ready {
			close(s.ready)
		}
	}
}

// current waits up to readyWait for a child that can take messages. It
// reads whether the child is ready and which child it is under one lock:
// read apart, a child made ready between the two reads was taken for none
// (the "restarting" answer to a client's first request).
func (s *Stdio) current(ctx context.Context) *child {
	if c := s.live.Load(); c != nil { // the usual case: no lock, no channel, no timer
		return c
	}
	var timeout <-chan time.Time
	for {
		s.mu.Lock()
		ready, c := s.ready, s.child
		select {
		case <-ready:
			s.mu.Unlock()
			return c
		default:
		}
		s.mu.Unlock()
		if currentUnlocked != nil {
			currentUnlocked()
		}
		if timeout == nil {
			t := time.NewTimer(readyWait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-ready:
		case <-timeout:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

// currentUnlocked, when a test sets it, runs in current between its read
// of the child's state and its wait: where a child made ready was once
// taken for none.
var currentUnlocked func()

// failPending answers every request in flight after the child went away.
func (s *Stdio) failPending(ctx context.Context, why string) {
	s.mu.Lock()
	reqs := s.flight
	s.flight = nil
	s.mu.Unlock()
	for _, r := range reqs {
		s.finish(r)
		if r.gone {
			continue
		}
		if r.call != nil {
			s.reply(r, s.g.crashed(r.tr.context(ctx), r.call, why), nil)
		} else {
			s.reply(r, rpcError(r.clientID, -32603, "the server exited before it answered"), nil)
		}
	}
}

// take removes the request in flight under the minted counter n.
func (s *Stdio) take(n uint64) *request {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.at(n)
	if i < 0 {
		return nil
	}
	r, last := s.flight[i], len(s.flight)-1
	s.flight[i], s.flight[last] = s.flight[last], nil
	s.flight = s.flight[:last]
	return r
}

// minted is the request in flight under the minted counter n, nil if
// none; the caller holds s.mu.
func (s *Stdio) minted(n uint64) *request {
	if i := s.at(n); i >= 0 {
		return s.flight[i]
	}
	return nil
}

// at is the index in s.flight of the request under the minted counter
// n, -1 if none; the caller holds s.mu.
func (s *Stdio) at(n uint64) int {
	for i, r := range s.flight {
		if r.n == n {
			return i
		}
	}
	return -1
}

// byClient is the request in flight that the client's id, whose key is
// ck, names, nil if none: not one gone; the caller holds s.mu.
func (s *Stdio) byClient(ck []byte) *request {
	for _, r := range s.flight {
		if !r.gone && bytes.Equal(r.ck, ck) {
			return r
		}
	}
	return nil
}

// inFlight reports whether the minted counter n names a request in flight.
func (s *Stdio) inFlight(n uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.minted(n) != nil
}

// finish releases what r holds. (Its deadline, if it has one, passes
// without effect: expire finds it no longer in flight.)
func (s *Stdio) finish(r *request) {
	if r.call != nil {
		s.g.done(r.call)
	}
}

// reply answers the client's request r with msg, after ending its span
// with what msg says (head is msg's parsed head, when the caller has it):
// once the client has its answer, the span has ended.
func (s *Stdio) reply(r *request, msg []byte, head *rpc.Message) {
	r.tr.answered(msg, head)
	s.send(msg)
}

// replyWithID answers r with msg, the server's answer m, under the id
// the client wrote: spliced into msg as the writer copies it, which spares
// a copy of the answer.
func (s *Stdio) replyWithID(r *request, msg []byte, m *rpc.Message) {
	if r.tr != nil || len(m.ID) == 0 {
		s.reply(r, rpc.WithID(msg, m, r.clientID), m)
		return
	}
	_ = s.out.splice(msg, m.IDAt, len(m.ID), r.clientID)
}

// peer is what the spans of this session's requests say of its client.
func (s *Stdio) peer() peer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return peer{version: s.version, transport: coreotel.TransportStdio}
}

// negotiated notes the protocol version of the child's initialize result.
func (s *Stdio) negotiated(result []byte) {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(result, &r) == nil && r.ProtocolVersion != "" {
		s.mu.Lock()
		s.version = protocolVersion(r.ProtocolVersion)
		s.mu.Unlock()
	}
}

// same reports whether a and b are the same bytes in memory.
func same(a, b []byte) bool { return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) }

// send writes one message to the client.
func (s *Stdio) send(msg []byte) { _ = s.out.write(msg) }

// write sends one message to the child.
func (c *child) write(msg []byte) error { return c.w.write(msg) }

// writer writes whole messages, one a line, from any goroutine.
type writer struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte // a message and its end of line, reused
}

// maxKeptLine is the largest line buffer a writer keeps between messages.
const maxKeptLine = 64 << 10

// write sends msg and its end of line in one Write. Written apart, they
// reach the reader at the other end of the pipe (the client's SDK, or the
// server) as two reads, and it wakes up twice for one message, waiting
// for the end of line: that was most of what the proxy added over a
// relay's io.Copy (docs/proxy.md, "Latency end to end").
func (w *writer) write(msg []byte) error { return w.splice(msg, 0, 0, nil) }

// writeCall writes the tools/call request rpc.AppendCall writes.
func (w *writer) writeCall(id, params []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(rpc.AppendCall(w.buf[:0], id, params), '\n')
	return w.flush()
}

// splice is write of msg with its n bytes at at replaced by with.
func (w *writer) splice(msg []byte, at, n int, with []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(append(append(append(w.buf[:0], msg[:at]...), with...), msg[at+n:]...), '\n')
	return w.flush()
}

// flush writes buf, the caller holding mu, keeping it for the next
// message unless it grew large.
func (w *writer) flush() error {
	_, err := w.w.Write(w.buf)
	if cap(w.buf) > maxKeptLine {
		w.buf = nil
	}
	return err
}

// redactedLines writes the child's stderr a line at a time, redacted as
// the proxy redacts what it logs (a server prints its connection URL
// there): unless [WithRawChildStderr].
type redactedLines struct {
	w   io.Writer
	red *redact.Redactor
	buf []byte
}

// maxStderrLine bounds a line kept whole; a longer one is written in
// pieces of this size.
const maxStderrLine = 64 << 10

func (l *redactedLines) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 && len(l.buf) < maxStderrLine {
			return len(p), nil
		}
		if i < 0 {
			i = maxStderrLine - 1
		}
		l.line(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
}

func (l *redactedLines) line(b []byte) {
	_, _ = io.WriteString(l.w, l.red.String(string(b))+"\n")
}

// flush writes a last line without an end of line.
func (l *redactedLines) flush() {
	if len(l.buf) > 0 {
		l.line(l.buf)
		l.buf = nil
	}
}
