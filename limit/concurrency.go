package limit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
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
	shared := make(chan struct{}, n)
	var perTool sync.Map // tool name -> chan struct{}; bounded by the server's tools
	retry := max(o.maxWait, minRetryAfter)
	why := fmt.Sprintf("Too many calls at once: this server runs at most %d at a time and none finished within %s.", n, o.maxWait)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			slots := shared
			if o.perTool {
				v, ok := perTool.Load(req.Params.Name)
				if !ok {
					v, _ = perTool.LoadOrStore(req.Params.Name, make(chan struct{}, n))
				}
				slots = v.(chan struct{})
			}
			if !acquire(ctx, slots, o.maxWait) {
				if ctx.Err() != nil {
					return o.cancelled(ctx, req), nil
				}
				return o.refuse(ctx, req, why, retry), nil
			}
			returned := false
			defer func() {
				if !returned { // next panicked
					<-slots
				}
			}()
			res, err := next(ctx, req)
			returned = true
			release(res, slots)
			return res, err
		}
	}
}

// minRetryAfter is the shortest delay Concurrency suggests: asking an agent
// to come back at once after a refusal only invites another refusal.
const minRetryAfter = 100 * time.Millisecond

func acquire(ctx context.Context, slots chan struct{}, wait time.Duration) bool {
	select {
	case slots <- struct{}{}:
		return true
	default:
	}
	if wait <= 0 {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}
