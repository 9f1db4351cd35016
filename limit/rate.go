package limit

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/envelope"
)

// Rate limits calls with token buckets (golang.org/x/time/rate): each key
// gets r calls per second with bursts of up to burst calls. Keys come from
// [WithKey], by default [DefaultKey] (principal, else remote address, else
// one global bucket; never the session, which a client can mint);
// [WithPerTool] gives every tool its own buckets.
//
// A refused call never reaches the handler. It is answered with an
// execution_failed envelope, retryable, whose retry_after_ms says when the
// bucket will have a token again, and whose next step says to wait that
// long.
//
// Memory is bounded in bytes: at most [WithMaxKeys] buckets (default
// [DefaultMaxKeys]) exist at once, and each keeps at most 64 bytes of its
// key (a longer key is kept as its 32-byte SHA-256 digest), so the bound
// holds however long the keys and however slowly buckets refill. A
// bucket that is full again is the same as a new one and is evicted;
// keys beyond the bound share one overflow bucket until room is made, so
// existing callers keep their budgets. An allowed call costs well under a
// microsecond and does not allocate once its key has a bucket.
//
// The buckets are those of the SDK-neutral core
// (github.com/mcpguard/mcpguard/core/limit). Rate panics unless r > 0 and
// burst >= 1; rate.Inf turns it off.
func Rate(r rate.Limit, burst int, opts ...Option) server.ToolHandlerMiddleware {
	o := evaluate(opts)
	allow := o.Rate(r, burst)
	if allow == nil {
		return func(next server.ToolHandlerFunc) server.ToolHandlerFunc { return next }
	}
	overlay := envelope.NewOverlay(o.EnvelopeOptions()...)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := allow(ctx, req.Params.Name, req); err != nil {
				return envelope.RendererFrom(ctx, nil).Over(overlay).Error(ctx, req, err), nil
			}
			return next(ctx, req)
		}
	}
}
