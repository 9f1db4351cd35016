package limit

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/gosdk"
)

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
// long.
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
	decide, envOpts := o.Rate(r, burst), o.EnvelopeOptions()
	if decide == nil {
		return func(next mcp.MethodHandler) mcp.MethodHandler { return next }
	}
	allow := func(ctx context.Context, tool string, req *mcp.CallToolRequest, next mcp.MethodHandler) (mcp.Result, error) {
		if err := decide(ctx, tool, req); err != nil {
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
