package middleware_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// Default has the repeated-failure guard, outside envelope (it sees the
// handler's Go error as an envelope) and outside the limits (a call it
// answers takes no token); WithRepeats replaces it, nil removes it.
func TestDefaultHasTheRepeatedFailureGuard(t *testing.T) {
	t.Parallel()
	tool := mcp.NewTool("shop_get", mcp.WithString("sku"))
	missing := map[string]any{"sku": "SKU-404"}
	for _, c := range []struct {
		name string
		opts []middleware.Option
		runs int64
	}{
		{"default", nil, limit.DefaultRepeatFailures},
		{"replaced", []middleware.Option{middleware.WithRepeats(limit.Repeats(1, time.Hour, limit.WithRepeatBackoff(time.Hour, time.Hour)))}, 1},
		{"off", []middleware.Option{middleware.WithRepeats(nil)}, 10},
	} {
		var runs, limited atomic.Int64
		counting := func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
			return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				limited.Add(1)
				return next(ctx, req)
			}
		}
		h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			runs.Add(1)
			return nil, envelope.New(envelope.NotFound, "no product SKU-404")
		}
		srv := middlewaretest.New(t, tool, h, middleware.Default(append(c.opts, middleware.WithLimits(counting))...)...)
		for i := range int64(10) {
			want := envelope.NotFound
			if i >= c.runs {
				want = envelope.ExecutionFailed // held back, retryable, quoting the not_found
			}
			srv.Call(missing).ExpectError(want)
		}
		if runs.Load() != c.runs || limited.Load() != c.runs {
			t.Errorf("%s: the handler ran %d times and the limits saw %d calls of 10, want %d", c.name, runs.Load(), limited.Load(), c.runs)
		}
	}
}
