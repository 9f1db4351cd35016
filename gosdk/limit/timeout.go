package limit

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	core "github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/gosdk"
)

// Timeout bounds how long a tool call may take: d for every tool, or what
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
// crashing the server (go-sdk recovers no panic; a goroutine's panic would
// end the process). A [Concurrency] layer counts such a handler until it
// returns, so put one around Timeout to bound how many can pile up. A
// panic before the deadline is raised again in the caller's goroutine as
// a [*HandlerPanic], for gosdk.Middleware to recover into an
// internal_error envelope: place Timeout inside it, with gosdk.WithLimits.
//
// Each timed call costs a channel and a timer, and runs on a worker
// goroutine that stays for the next call for a second (one started per
// call would copy its stack as it grows, a tenth of a go-sdk tool call);
// tools without a timeout pass through untouched. d of zero times out
// only the tools named with WithToolTimeout. Timeout panics on a negative d.
func Timeout(d time.Duration, opts ...Option) mcp.Middleware {
	o := evaluate(opts)
	limitOf, logger, envOpts := o.Timeouts(d), o.Logger(), o.EnvelopeOptions()
	return onToolCalls(func(ctx context.Context, req *mcp.CallToolRequest, next mcp.MethodHandler) (mcp.Result, error) {
		name := toolName(req)
		limit := limitOf(name)
		if limit <= 0 {
			return next(ctx, methodCallTool, req)
		}
		call := func(ctx context.Context) (mcp.Result, error) { return next(ctx, methodCallTool, req) }
		answer := func(err error) mcp.Result { return gosdk.ErrorResult(ctx, req, err, envOpts...) }
		return core.Within(ctx, name, limit, logger, call, answer)
	})
}

// HandlerPanic is what [Timeout] panics with in the caller's goroutine
// when the handler panicked in its own: the original value and that
// goroutine's stack, which gosdk.Middleware logs and never sends.
type HandlerPanic = core.HandlerPanic
