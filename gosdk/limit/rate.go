package limit

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	core "github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/gosdk"
)

// holdCall reads a refused call as core/limit's holds do: whether its
// client negotiated multi round-trip requests, and whether and how often
// it was shed (inside gosdk.Middleware, which seals the shed state).
func holdCall(ctx context.Context, req *mcp.CallToolRequest) core.HoldCall {
	rounds, canShed := gosdk.Shedding(ctx, req)
	return core.HoldCall{Modern: gosdk.MultiRoundTrip(req), CanShed: canShed, Rounds: rounds}
}

// Rate limits tool calls with token buckets (golang.org/x/time/rate): each
// key gets r calls per second with bursts of up to burst calls. Keys come
// from [WithKey], by default [DefaultKey] (the TokenInfo's user, else a
// principal or remote address named in the context, else one global
// bucket; never the session, which a client can mint); [WithPerTool]
// gives every tool the server has its own buckets.
//
// A refused call never reaches the handler. It is answered with an
// execution_failed envelope, retryable, whose retry_after_ms says when the
// bucket will have a token again, and whose next step says to wait that
// long. A client that negotiated MCP 2026-07-28 (multi round-trip) is not
// answered so when its token is at most [WithHoldCap] away (3 s by
// default) and within the call's deadline: the call is held until its
// token, reserved in order, is there, and then runs, so that its model
// sees the result rather than spending a turn on a refusal. At most 128
// calls of one key and 1024 in all are held at once; inside
// gosdk.Middleware (which seals requestState), a call beyond them is
// answered with a load-shedding input_required (no input requests, a
// sealed requestState), which the client's SDK sends again by itself, at
// most twice, and which the limit decides again; long waits, the calls
// beyond otherwise, and clients of older revisions are answered at once,
// as before. Held and re-sent calls never run faster than the rate.
//
// Memory is bounded in bytes: at most [WithMaxKeys] buckets (default
// [DefaultMaxKeys]) exist at once, and each keeps at most 64 bytes of its
// key (a longer key is kept as its 32-byte SHA-256 digest). A bucket that
// is full again is evicted; keys beyond the bound share one overflow
// bucket until room is made, so existing callers keep their budgets. An
// allowed call does not allocate once its key has a bucket (a TokenInfo
// key costs one small allocation). The buckets are those of the SDK-neutral
// core, github.com/mcpguard/mcpguard/core/limit, the very ones the mcp-go
// front uses.
//
// Rate panics unless r > 0 and burst >= 1; rate.Inf turns it off.
func Rate(r rate.Limit, burst int, opts ...Option) mcp.Middleware {
	o := evaluate(opts)
	stage, envOpts := o.RateStage(r, burst, holdCall), o.EnvelopeOptions()
	if stage == nil {
		return func(next mcp.MethodHandler) mcp.MethodHandler { return next }
	}
	allow := func(ctx context.Context, tool string, req *mcp.CallToolRequest, next mcp.MethodHandler) (mcp.Result, error) {
		switch _, a, err := stage.Admit(ctx, tool, req); a {
		case core.Shed:
			return gosdk.ShedResult(ctx, req), nil
		case core.Refused:
			return gosdk.ErrorResult(ctx, req, err, envOpts...), nil
		}
		return next(ctx, methodCallTool, req)
	}
	if o.PerTool() {
		return perToolCalls(allow)
	}
	return onToolCalls(func(ctx context.Context, req *mcp.CallToolRequest, next mcp.MethodHandler) (mcp.Result, error) {
		return allow(ctx, toolName(req), req, next) // its buckets are every tool's; the name goes to the records
	})
}
