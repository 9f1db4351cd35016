package limit_test

import (
	"bytes"
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// deaf is a handler that ignores its context: it runs until the test
// releases it, and counts how many of it run at once.
type deaf struct {
	running atomic.Int64
	peak    atomic.Int64
	release chan struct{}
}

func newDeaf() *deaf { return &deaf{release: make(chan struct{})} }

func (d *deaf) handle(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	n := d.running.Add(1)
	for p := d.peak.Load(); n > p && !d.peak.CompareAndSwap(p, n); p = d.peak.Load() {
	}
	defer d.running.Add(-1)
	<-d.release
	return mcp.NewToolResultText("late"), nil
}

// TestConcurrencyCountsHandlersTimeoutLeftRunning: with n = 2 and a 30 ms
// timeout, 12 sequential calls to a handler that ignores its context may
// leave at most 2 handlers running, in either order of the two layers; the
// other calls are refused with retry_after_ms. Before Concurrency held its
// slot until the handler really returned, Concurrency outside Timeout let
// all 12 run.
func TestConcurrencyCountsHandlersTimeoutLeftRunning(t *testing.T) {
	orders := map[string]func() []server.ToolHandlerMiddleware{
		"concurrency outside timeout": func() []server.ToolHandlerMiddleware {
			return []server.ToolHandlerMiddleware{limit.Concurrency(2, limit.WithMaxWait(0)), limit.Timeout(30 * time.Millisecond)}
		},
		"concurrency inside timeout": func() []server.ToolHandlerMiddleware {
			// A refusal happens inside the timed goroutine: a deadline
			// short enough for a stall of the machine to beat the refusal
			// would count it as a timeout.
			return []server.ToolHandlerMiddleware{limit.Timeout(250 * time.Millisecond), limit.Concurrency(2, limit.WithMaxWait(0))}
		},
	}
	for name, layers := range orders {
		t.Run(name, func(t *testing.T) {
			d := newDeaf()
			srv := middlewaretest.New(t, tool, d.handle, middleware.Default(middleware.WithLimits(layers()...))...)
			timedOut, refused := 0, 0
			for range 12 {
				r := srv.Call(nil).ExpectError(envelope.ExecutionFailed).NoLeak()
				require.NotNil(t, r.Envelope)
				assert.True(t, r.Envelope.Retryable)
				if r.Envelope.RetryAfterMS > 0 {
					refused++
					assert.Contains(t, r.Envelope.Message, "at most 2 at a time")
				} else {
					timedOut++
					assert.Contains(t, r.Envelope.Message, "did not finish within")
				}
			}
			t.Logf("%s: %d handlers running after 12 calls, %d timed out, %d refused", name, d.running.Load(), timedOut, refused)
			assert.LessOrEqual(t, d.peak.Load(), int64(2), "handlers running at once")
			assert.Equal(t, 2, timedOut)
			assert.Equal(t, 10, refused)

			stuck, _ := limitGoroutines()
			assert.Positive(t, stuck, "the late handlers' goroutines are found while they run")
			close(d.release)
			waitForNoLimitGoroutines(t)
			assert.Zero(t, d.running.Load())
			// The slots came back when the handlers returned.
			d2 := newDeaf()
			close(d2.release)
			srv2 := middlewaretest.New(t, tool, d2.handle, middleware.Default(middleware.WithLimits(layers()...))...)
			srv2.Call(nil).ExpectSuccess()
		})
	}
}

// TestConcurrencySlotComesBackWhenALateHandlerReturns: the slot a
// timed-out handler held is free again once that handler returns, and
// then a call gets it.
func TestConcurrencySlotComesBackWhenALateHandlerReturns(t *testing.T) {
	d := newDeaf()
	srv := middlewaretest.New(t, tool, d.handle, limit.Concurrency(1, limit.WithMaxWait(0)), limit.Timeout(10*time.Millisecond))
	srv.Call(nil).ExpectError(envelope.ExecutionFailed).ExpectMessage("did not finish within")
	srv.Call(nil).ExpectError(envelope.ExecutionFailed).ExpectMessage("at most 1 at a time")
	close(d.release)
	waitForNoLimitGoroutines(t)
	assert.Equal(t, "late", srv.Call(nil).ExpectSuccess().Text())
}

// TestConcurrencyWaiterGetsTheSlotOfALateHandler: a call waiting for a
// slot gets the one a timed-out handler frees when it returns.
func TestConcurrencyWaiterGetsTheSlotOfALateHandler(t *testing.T) {
	d := newDeaf()
	srv := middlewaretest.New(t, tool, d.handle, limit.Concurrency(1, limit.WithMaxWait(time.Hour)), limit.Timeout(10*time.Millisecond))
	srv.Call(nil).ExpectError(envelope.ExecutionFailed).ExpectMessage("did not finish within")
	waiting := background(srv, "shop_search")
	select {
	case r := <-waiting:
		t.Fatalf("a call ran while a timed-out handler held the only slot: %s", r.Raw)
	case <-time.After(20 * time.Millisecond):
	}
	close(d.release) // the late handler returns; the waiter runs, returns at once
	assert.Equal(t, "late", (<-waiting).ExpectSuccess().Text())
	waitForNoLimitGoroutines(t)
}

// waitForNoLimitGoroutines waits until no goroutine runs code of package
// limit (a handler Timeout started, or what waits for it), and fails the
// test if some are still there after a generous grace period. The tests
// that use it are not parallel, so the goroutines it finds are theirs.
func waitForNoLimitGoroutines(t *testing.T) {
	t.Helper()
	var left int
	var stacks []byte
	for range 1000 {
		left, stacks = limitGoroutines()
		if left == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d goroutines of package limit left behind:\n%s", left, stacks)
}

// isLimitGoroutine reports whether a goroutine runs code of the limits'
// core, where every goroutine they start runs: a handler Timeout runs, what
// waits for it, a call waiting for a slot.
func isLimitGoroutine(stack []byte) bool {
	return bytes.Contains(stack, []byte("github.com/mcpguard/mcpguard/core/limit."))
}

func limitGoroutines() (int, []byte) {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	var found []byte
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if isLimitGoroutine(g) {
			n++
			found = append(append(found, g...), "\n\n"...)
		}
	}
	return n, found
}
