package limit

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	core "github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/gosdk"
)

// Concurrency lets at most n tool calls run at once; with [WithPerTool], n
// per tool the server has. A call that finds every slot taken waits up to
// [WithMaxWait] (default [DefaultMaxWait]) for one, and is then refused
// like a rate-limited call: execution_failed, retryable, with
// retry_after_ms set to the wait bound (at least 100 ms) and a step that
// says to wait that long. A call whose client gives up while it waits is
// answered at once. A client that negotiated MCP 2026-07-28 is held on,
// within [WithHoldCap] and its deadline, until a slot frees, or shed when
// it finds no room to be held, as [Rate] holds and sheds it.
//
// n bounds the handlers running, not the callers waiting for an answer: a
// call that [Timeout] answered at its deadline while its handler, which
// ignores its context, runs on, keeps its slot until that handler returns,
// whichever of the two layers is outside the other.
//
// A call that gets a slot at once costs a channel operation and an atomic
// load, and does not allocate. Concurrency panics unless n >= 1.
func Concurrency(n int, opts ...Option) mcp.Middleware {
	o := evaluate(opts)
	stage, envOpts := o.SlotStage(n, holdCall), o.EnvelopeOptions()
	run := func(ctx context.Context, tool string, req *mcp.CallToolRequest, next mcp.MethodHandler) (mcp.Result, error) {
		call := func() (mcp.Result, error) { return next(ctx, methodCallTool, req) }
		refuse := func(err error) mcp.Result { return gosdk.ErrorResult(ctx, req, err, envOpts...) }
		shed := func(core.HoldCall) mcp.Result { return gosdk.ShedResult(ctx, req) }
		return core.HoldSlot(ctx, stage, tool, req, call, refuse, shed)
	}
	if o.PerTool() {
		return perToolCalls(run)
	}
	return onToolCalls(func(ctx context.Context, req *mcp.CallToolRequest, next mcp.MethodHandler) (mcp.Result, error) {
		return run(ctx, "", req, next)
	})
}
