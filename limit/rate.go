package limit

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/time/rate"

	core "github.com/mcpguard/mcpguard/core/limit"
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
// long. A client that negotiated MCP 2026-07-28 (multi round-trip) is not
// answered so when its token is at most [WithHoldCap] away (3 s by
// default) and within the call's deadline: the call is held until its
// token, reserved in order, is there, and then runs, so that its model
// sees the result, not a refusal (a model turn spent on waiting). At most
// 128 calls of one key and 1024 in all are held at once; the others, and
// clients of older revisions, are answered at once, as before. Held calls
// never run faster than the rate: each runs with its own token (with
// [WithStore], taken from the store once the wait is over).
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
	stage := o.RateStage(r, burst, holdCall)
	if stage == nil {
		return func(next server.ToolHandlerFunc) server.ToolHandlerFunc { return next }
	}
	overlay := envelope.NewOverlay(o.EnvelopeOptions()...)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if _, a, err := stage.Admit(ctx, req.Params.Name, req); a == core.Refused || a == core.Shed {
				return envelope.RendererFrom(ctx, nil).Over(overlay).Error(ctx, req, err), nil
			}
			return next(ctx, req)
		}
	}
}

// holdCall reads a refused call as core/limit's holds do. This front never
// sheds: mcp-go's server writes no empty inputRequests, which go-sdk's
// client (v1.8.0) needs to see load shedding (without it, it hands its
// caller an empty result), so a call it cannot hold gets its refusal.
func holdCall(ctx context.Context, _ mcp.CallToolRequest) core.HoldCall {
	return core.HoldCall{Modern: mcp.IsModernProtocol(server.RequestProtocolVersion(ctx))}
}
