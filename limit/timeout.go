package limit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/internal/incident"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// Timeout bounds how long a call may take: d for every tool, or what
// [WithToolTimeout] says for one tool (zero exempts it). The handler's
// context carries the deadline. A call that passes it is answered with an
// execution_failed envelope, retryable, whose next step says to make the
// call cheaper (a narrower query, a smaller page).
//
// The caller is released at the deadline even when the handler ignores its
// context: the handler runs in a goroutine of its own, and Go cannot stop
// a goroutine from outside. Such a handler keeps running after the answer
// has gone out, until it returns by itself; its result is then dropped,
// and a panic it raises that late is logged with an incident ID instead of
// crashing the server. A [Concurrency] layer counts such a handler until it
// returns, so put one around Timeout to bound how many can pile up. A panic before the deadline is raised again in the
// caller's goroutine, so the recover layer outside handles it as usual
// (its value carries the handler goroutine's stack, for the log).
//
// Each timed call costs a goroutine, a channel and a timer; tools without a
// timeout pass through untouched. d of zero times out only the tools named
// with WithToolTimeout. Timeout panics on a negative d.
func Timeout(d time.Duration, opts ...Option) server.ToolHandlerMiddleware {
	if d < 0 {
		panic(fmt.Sprintf("limit: Timeout(%s): negative duration", d))
	}
	o := evaluate(opts)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			limit := d
			if t, ok := o.toolTimeouts[req.Params.Name]; ok {
				limit = t
			}
			if limit <= 0 {
				return next(ctx, req)
			}
			return o.timed(ctx, req, next, limit)
		}
	}
}

type outcome struct {
	res   *mcp.CallToolResult
	err   error
	panic any
	stack []byte
}

func (o *options) timed(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc, limit time.Duration) (*mcp.CallToolResult, error) {
	tctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	done := make(chan outcome, 1) // buffered: a late handler never blocks
	go run(tctx, req, next, done)
	select {
	case out := <-done:
		return o.settle(ctx, tctx, req, limit, out)
	case <-tctx.Done():
		select {
		case out := <-done: // finished just in time: its answer wins
			return o.settle(ctx, tctx, req, limit, out)
		default:
		}
		var res *mcp.CallToolResult
		if ctx.Err() != nil {
			// The client went away or cancelled: not this layer's deadline.
			res = o.cancelled(ctx, req)
		} else {
			res = o.timedOut(ctx, req, limit)
		}
		go o.drain(ctx, req.Params.Name, done, res, detach(res))
		return res, nil
	}
}

// settle answers with what the handler did in time: its result, its
// error, or its panic raised again in the caller's goroutine. A handler
// that gave up on this layer's deadline gets the timeout answer.
func (o *options) settle(ctx, tctx context.Context, req mcp.CallToolRequest, limit time.Duration, out outcome) (*mcp.CallToolResult, error) {
	if out.panic != nil {
		panic(&HandlerPanic{Value: out.panic, Stack: out.stack})
	}
	if out.err != nil && envelope.Is(out.err, context.DeadlineExceeded) && errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return o.timedOut(ctx, req, limit), nil
	}
	return out.res, out.err
}

// run calls the handler and reports how it ended, a panic or
// runtime.Goexit included, with the stack taken while it was unwinding.
func run(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc, done chan<- outcome) {
	var out outcome
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
	out.res, out.err = next(ctx, req)
	finished = true
}

var errGoexit = errors.New("tool handler called runtime.Goexit or panicked with nil")

// drain waits for a handler that outlived its deadline, so that a late
// panic is logged rather than lost, and so that the slots a [Concurrency]
// layer outside holds for it are freed only now.
func (o *options) drain(ctx context.Context, tool string, done <-chan outcome, res *mcp.CallToolResult, s *straggler) {
	out := <-done
	s.finish(res)
	if out.panic == nil {
		return
	}
	safe.Log(ctx, o.log(), slog.LevelError, "mcpguard: tool handler panicked after its timeout",
		slog.String("tool", tool),
		slog.String("incident_id", incident.New()),
		slog.String("panic", safe.Value(out.panic)),
		slog.String("stack", string(out.stack)))
}

// cancelled answers a call whose own context ended first: the envelope
// layer's answer to a cancellation.
func (o *options) cancelled(ctx context.Context, req mcp.CallToolRequest) *mcp.CallToolResult {
	return envelope.ErrorResult(ctx, req, ctx.Err(), o.envOpts...)
}

func (o *options) timedOut(ctx context.Context, req mcp.CallToolRequest, limit time.Duration) *mcp.CallToolResult {
	err := fmt.Errorf("%s did not finish within %s: %w", req.Params.Name, limit, context.DeadlineExceeded)
	err = envelope.ReplaceNextSteps(envelope.WithRetryable(envelope.Wrap(envelope.ExecutionFailed, err), true),
		"Make the call cheaper before you repeat it: narrow the query, ask for a smaller page or a shorter range, or split it into several calls.")
	return envelope.ErrorResult(ctx, req, err, o.envOpts...)
}

// HandlerPanic is what [Timeout] panics with in the caller's goroutine
// when the handler panicked in its own: the original value and that
// goroutine's stack, which the recover layer logs and never sends.
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
