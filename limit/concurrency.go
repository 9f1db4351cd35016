package limit

import (
	"context"
	"fmt"

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
	if n < 1 {
		panic(fmt.Sprintf("limit: Concurrency(%d): need at least 1", n))
	}
	o := evaluate(opts)
	slots := core.NewSlots(n, o.perTool, o.maxWait)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			slot, err := slots.Acquire(ctx, req.Params.Name)
			if err != nil {
				return envelope.ErrorResult(ctx, req, err, o.envOpts...), nil
			}
			returned := false
			defer func() {
				if !returned { // next panicked
					slot.Release(nil)
				}
			}()
			res, err := next(ctx, req)
			returned = true
			slot.Release(res)
			return res, err
		}
	}
}
