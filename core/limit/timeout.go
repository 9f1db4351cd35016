package limit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/internal/incident"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// Within runs call with a context that expires after d, in a goroutine of
// its own (a worker, reused by the next call), so that the caller is
// released at the deadline even when call ignores its context; Go cannot
// stop a goroutine from outside.
//
// What call returns in time is returned as it is, except an error that
// wraps this deadline's context.DeadlineExceeded, which is answered as
// timed out. A panic in time (runtime.Goexit included) is raised again in
// the caller's goroutine as a [*HandlerPanic], for the front's recovery
// layer. At the deadline, or when ctx ends first, Within returns
// answer(err), err being [TimedOut] or ctx.Err(). answer renders the
// front's result; it must return a new pointer each time, because that
// pointer is the token by which a [Slot] released with it stays taken
// until call really returns ([Detach]). call's late result is dropped; a
// late panic is logged to logger (slog.Default() if nil) with an incident
// ID. Nothing is left running once call has returned.
func Within[R any](ctx context.Context, tool string, d time.Duration, logger *slog.Logger,
	call func(context.Context) (R, error), answer func(error) R) (R, error) {
	tctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	done := make(chan outcome[R], 1) // buffered: a late handler never blocks
	spawn(func() { run(tctx, call, done) })
	select {
	case out := <-done:
		return settle(ctx, tctx, tool, d, out, answer)
	case <-tctx.Done():
		select {
		case out := <-done: // finished just in time: its answer wins
			return settle(ctx, tctx, tool, d, out, answer)
		default:
		}
		err := ctx.Err() // the client went away or cancelled: not this deadline
		if err == nil {
			err = TimedOut(tool, d)
		}
		res := answer(err)
		go drain(ctx, tool, logger, done, Detach(res))
		return res, nil
	}
}

// Timed calls run on worker goroutines that wait for the next call for
// up to workerIdle after theirs, instead of a goroutine started per call:
// a new goroutine's stack starts small and is copied each time it
// doubles, which on a handler as deep as an SDK's tool call (decoding,
// schema validation, encoding) cost about a tenth of the call; a worker's
// stack stays grown. An idle worker holds no call, no context and no
// slot, and exits once no call came for workerIdle.
var workers = make(chan func()) // unbuffered: a send succeeds only when a worker waits

const workerIdle = time.Second

// spawn runs fn on an idle worker, or on a new one.
func spawn(fn func()) {
	select {
	case workers <- fn:
	default:
		go work(fn)
	}
}

// work runs fn, then the calls spawn hands it, until none came for
// workerIdle. A call that ends its goroutine (runtime.Goexit) ends the
// worker; run reports it first.
func work(fn func()) {
	fn()
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		select {
		case fn = <-workers:
			fn()
			idle.Reset(workerIdle)
		case <-idle.C:
			return
		}
	}
}

type outcome[R any] struct {
	res   R
	err   error
	panic any
	stack []byte
}

// settle answers with what the handler did in time: its result, its
// error, or its panic raised again in the caller's goroutine. A handler
// that gave up on this deadline gets the timeout answer.
func settle[R any](ctx, tctx context.Context, tool string, d time.Duration, out outcome[R], answer func(error) R) (R, error) {
	if out.panic != nil {
		panic(&HandlerPanic{Value: out.panic, Stack: out.stack})
	}
	if out.err != nil && envelope.Is(out.err, context.DeadlineExceeded) && errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return answer(TimedOut(tool, d)), nil
	}
	return out.res, out.err
}

// run calls the handler and reports how it ended, a panic or
// runtime.Goexit included, with the stack taken while it was unwinding.
func run[R any](ctx context.Context, call func(context.Context) (R, error), done chan<- outcome[R]) {
	var out outcome[R]
	finished := false
	defer func() {
		if !finished {
			out.panic = recover()
			if out.panic == nil {
				out.panic = errGoexit
			}
			out.stack = debug.Stack()
		}
		done <- out
	}()
	out.res, out.err = call(ctx)
	finished = true
}

var errGoexit = errors.New("tool handler called runtime.Goexit or panicked with nil")

// drain waits for a handler that outlived its deadline, so that a late
// panic is logged rather than lost, and so that the slots held for it are
// freed only now.
func drain[R any](ctx context.Context, tool string, logger *slog.Logger, done <-chan outcome[R], s *Straggler) {
	out := <-done
	s.Finish()
	if out.panic == nil {
		return
	}
	if logger == nil {
		logger = slog.Default()
	}
	safe.Log(ctx, logger, slog.LevelError, "mcpguard: tool handler panicked after its timeout",
		slog.String(logkey.Tool, tool),
		slog.String(logkey.IncidentID, incident.New()),
		slog.String(logkey.Panic, safe.Value(out.panic)),
		slog.String(logkey.Stack, string(out.stack)))
}

// HandlerPanic is what [Within] panics with in the caller's goroutine
// when the handler panicked in its own: the original value and that
// goroutine's stack, which a recovery layer logs and never sends.
type HandlerPanic struct {
	// Value is what the handler panicked with.
	Value any
	// Stack is the handler goroutine's stack at the panic.
	Stack []byte
}

// String formats the value and the stack for a log record.
func (p *HandlerPanic) String() string {
	return fmt.Sprintf("%s\n\nhandler goroutine:\n%s", safe.Value(p.Value), p.Stack)
}
