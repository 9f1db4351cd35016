package proxy

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
)

// events reads a server-sent event stream from the upstream and yields it
// to the client event by event: unchanged, but for the event that answers
// the exchange's tool call, which is rewritten, and any event over the
// bound, which is dropped (the call it answered gets an envelope). A
// stream that fails before the call was answered (the call's timeout, the
// upstream gone) ends with an event that answers it.
type events struct {
	h    *HTTP
	x    *exchange
	ctx  context.Context
	body io.ReadCloser
	lr   *rpc.LineReader
	out  []byte // what is left of the event being yielded
	end  error
	ev   bytes.Buffer // the event being read: its lines as received
	data bytes.Buffer // its data, joined
	big  bool
}

func (e *events) Read(p []byte) (int, error) {
	for len(e.out) == 0 {
		if e.end != nil {
			return 0, e.end
		}
		e.out = e.nextEvent()
	}
	n := copy(p, e.out)
	e.out = e.out[n:]
	return n, nil
}

func (e *events) Close() error { return e.body.Close() }

// nextEvent reads one event and returns what to yield for it.
func (e *events) nextEvent() []byte {
	e.ev.Reset()
	e.data.Reset()
	e.big = false
	for {
		line, oversize, err := e.lr.Line()
		if err != nil {
			return e.ended(err)
		}
		if len(line) == 0 { // the blank line that ends an event
			return e.event()
		}
		e.add(line, oversize)
	}
}

// add appends one line to the event being read, bounded.
func (e *events) add(line []byte, oversize bool) {
	if oversize || e.ev.Len()+len(line) > e.h.g.o.maxMessage {
		if !e.big && bytes.HasPrefix(line, []byte("data:")) && e.data.Len() == 0 {
			e.data.Write(bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" ")))
		}
		e.big = true
		return
	}
	e.ev.Write(line)
	e.ev.WriteByte('\n')
	if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
		if e.data.Len() > 0 {
			e.data.WriteByte('\n')
		}
		e.data.Write(bytes.TrimPrefix(d, []byte(" ")))
	}
}

// event returns what to yield for the event just read.
func (e *events) event() []byte {
	if e.big {
		if out := e.h.oversize(e.ctx, e.x, e.data.Bytes()); out != nil {
			return sse(out)
		}
		return nil
	}
	if e.ev.Len() == 0 {
		return []byte("\n")
	}
	if e.data.Len() > 0 {
		d := e.data.Bytes()
		out := e.h.message(e.ctx, e.x, d)
		if out == nil {
			return nil // dropped
		}
		if !bytes.Equal(out, d) {
			return sse(out)
		}
	}
	return append(bytes.Clone(e.ev.Bytes()), '\n')
}

// ended finishes the stream: a call still unanswered gets its answer.
func (e *events) ended(err error) []byte {
	e.end = io.EOF
	if !errors.Is(err, io.EOF) {
		e.end = err
	}
	x := e.x
	if x == nil || x.id == nil || x.state.done {
		return nil
	}
	if e.end == io.EOF && e.ctx.Err() == nil {
		// The upstream ended the stream cleanly before it answered: SEP-1699
		// polling, where the answer comes on a GET stream the client resumes
		// with Last-Event-ID. Answering here would answer for the server;
		// the answer is rewritten there instead (resume.go).
		e.h.awaitResume(e.ctx, x)
		return nil
	}
	if x.call == nil {
		return nil // the client's transport answers a request other than a call
	}
	x.state.done = true
	e.end = io.EOF
	var out []byte
	if errors.Is(e.ctx.Err(), context.DeadlineExceeded) {
		out = e.h.g.timedOut(e.ctx, x.call)
	} else {
		out = e.h.g.crashed(e.ctx, x.call, "the upstream's event stream ended before it answered")
	}
	if errors.Is(e.ctx.Err(), context.Canceled) {
		x.tr.cancelled() // the client went away: it reads no answer
	}
	x.tr.answered(out, nil)
	return sse(out)
}

// sse is msg as one event.
func sse(msg []byte) []byte {
	b := make([]byte, 0, len(msg)+20)
	b = append(b, "event: message\ndata: "...)
	b = append(b, msg...)
	return append(b, "\n\n"...)
}
