package limit

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	core "github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/envelope"
)

// Concurrency lets at most n calls run at once; with [WithPerTool], n per
// tool. A call that finds every slot taken waits up to [WithMaxWait]
// (default [DefaultMaxWait]) for one, and is then refused like a
// rate-limited call: execution_failed, retryable, with retry_after_ms set
// to the wait bound (at least 100 ms) and a step that says to wait that
// long. A call whose client gives up while it waits is answered at once.
// A client that negotiated MCP 2026-07-28 is held on, within
// [WithHoldCap] and its deadline, until a slot frees, as [Rate] holds it.
//
// n bounds the handlers running, not the callers waiting for an answer: a
// call that [Timeout] answered at its deadline while its handler, which
// ignores its context, runs on, keeps its slot until that handler returns,
// whichever of the two layers is outside the other. Calls beyond n are
// then refused as above, so a slow backend is not handed more work than n.
//
// A call that gets a slot at once costs a channel operation and an atomic
// load, and does not allocate. Concurrency panics unless n >= 1.
func Concurrency(n int, opts ...Option) server.ToolHandlerMiddleware {
	o := evaluate(opts)
	stage, overlay := o.SlotStage(n, holdCall), envelope.NewOverlay(o.EnvelopeOptions()...)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			call := func() (*mcp.CallToolResult, error) { return next(ctx, req) }
			refuse := func(err error) *mcp.CallToolResult {
				return envelope.RendererFrom(ctx, nil).Over(overlay).Error(ctx, req, err)
			}
			return core.HoldSlot(ctx, stage, req.Params.Name, req, call, refuse, nil)
		}
	}
}
