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

// The guard's answer is shaped as every error result of the chain: for a
// tool that declares an output schema, the envelope is not put in
// structuredContent, which a strict client validates against that schema
// (and would reject, answer and all).
func TestAHeldBackCallOfAToolWithAnOutputSchemaHasNoStructuredContent(t *testing.T) {
	t.Parallel()
	tool := mcp.NewTool("shop_get", mcp.WithString("sku"), mcp.WithOutputSchema[struct {
		Name string `json:"name"`
	}]())
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, envelope.New(envelope.NotFound, "no product SKU-404")
	}
	for _, c := range []struct {
		name string
		opts []middleware.Option
	}{
		{"default", nil},
		{"a guard of the user's own (WithRepeats)", []middleware.Option{middleware.WithRepeats(limit.Repeats(limit.DefaultRepeatFailures, time.Hour))}},
	} {
		srv := middlewaretest.New(t, tool, h, middleware.Default(c.opts...)...)
		for i := range limit.DefaultRepeatFailures + 1 {
			want := envelope.NotFound
			if i >= limit.DefaultRepeatFailures {
				want = envelope.ExecutionFailed
			}
			r := srv.Call(map[string]any{"sku": "SKU-404"}).ExpectError(want)
			if sc := r.StructuredContent(); len(sc) > 0 {
				t.Errorf("%s: call %d (%s) carries structuredContent %s, which the output schema does not admit", c.name, i+1, want, sc)
			}
		}
	}
}
