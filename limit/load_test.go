package limit_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
)

// TestRateUnderLoad runs 50 streamable-HTTP clients on loopback against a
// tool behind one global bucket of 100 calls/s. Each client calls as an
// agent would: again at once after a success, after retry_after_ms (at
// least 20 ms) after a refusal. Over the run, the accepted calls must match
// what a bucket of that rate and burst allows, within 10% (the lower bound
// when the clients offered at least twice what was accepted), every
// refusal must be an envelope with a retry delay, and no call may end in a
// JSON-RPC error.
func TestRateUnderLoad(t *testing.T) {
	const (
		clients = 50
		perSec  = 100
		burst   = 20
	)
	run := 3 * time.Second
	if testing.Short() {
		run = time.Second
	}
	var handled atomic.Int64
	s := server.NewMCPServer("load", "0", server.WithToolCapabilities(false))
	global := func(context.Context, mcp.CallToolRequest) string { return "" }
	s.Use(middleware.Default(middleware.WithLimits(limit.Rate(perSec, burst, limit.WithKey(global))))...)
	s.AddTool(tool, counting(&handled))
	ts := servertest.NewTestStreamableHTTPServer(s)
	defer ts.Close()

	ctx, cancel := context.WithTimeout(context.Background(), run+time.Minute)
	defer cancel()
	conns := make([]*client.Client, clients)
	for i := range conns {
		c, err := client.NewStreamableHttpClient(ts.URL + "/mcp")
		require.NoError(t, err)
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		init.Params.ClientInfo = mcp.Implementation{Name: fmt.Sprintf("load-%d", i), Version: "1"}
		_, err = c.Initialize(ctx, init)
		require.NoError(t, err)
		conns[i] = c
	}

	var accepted, refused, rpcErrors, badRefusals atomic.Int64
	var firstProblem atomic.Pointer[string]
	problem := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		firstProblem.CompareAndSwap(nil, &msg)
	}
	start := time.Now()
	deadline := start.Add(run)
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			defer c.Close()
			req := mcp.CallToolRequest{}
			req.Params.Name = tool.Name
			for time.Now().Before(deadline) {
				res, err := c.CallTool(ctx, req)
				if err != nil {
					rpcErrors.Add(1)
					problem("JSON-RPC error: %v", err)
					return
				}
				if !res.IsError {
					accepted.Add(1)
					continue
				}
				refused.Add(1)
				env, ok := envelope.FromResult(res)
				if !ok || env.ErrorType != envelope.ExecutionFailed || !env.Retryable || env.RetryAfterMS <= 0 {
					badRefusals.Add(1)
					problem("refusal without a retry delay: %+v", env)
					return
				}
				time.Sleep(max(time.Duration(env.RetryAfterMS)*time.Millisecond, 20*time.Millisecond))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)

	if p := firstProblem.Load(); p != nil {
		t.Error(*p)
	}
	assert.Zero(t, rpcErrors.Load(), "JSON-RPC errors")
	assert.Zero(t, badRefusals.Load(), "refusals that are not retryable envelopes with retry_after_ms")
	assert.Equal(t, accepted.Load(), handled.Load(), "every accepted call, and only those, reached the handler")

	// The bucket starts full (burst) and refills at perSec: that is the
	// most it can accept over the run, and, with clients always waiting,
	// about what it should accept.
	allowed := float64(burst) + perSec*elapsed.Seconds()
	got := float64(accepted.Load())
	t.Logf("%d clients, %s: %d accepted (bucket allows %.0f, %.1f/s), %d refused",
		clients, elapsed.Round(time.Millisecond), accepted.Load(), allowed, got/elapsed.Seconds(), refused.Load())
	assert.LessOrEqual(t, got, allowed+1, "more accepted than the bucket allows")
	if refused.Load() < accepted.Load() {
		// The clients asked for less than twice what was accepted: the
		// machine (a loaded CI runner, the race detector), not the limiter,
		// set the pace, so a shortfall would say nothing about the limiter.
		t.Logf("offered load too low to check the lower bound: %d calls in %s", accepted.Load()+refused.Load(), elapsed)
		return
	}
	// Tokens a stalled machine does not take in time are lost beyond the
	// burst, so how close to the rate the clients get is the machine's; a
	// bucket that refills too slowly, or not at all, still fails here.
	assert.GreaterOrEqual(t, got, float64(burst)+0.5*perSec*elapsed.Seconds(), "accepted rate more than half below the limit")
}

// TestRateMemoryIsBoundedUnderManyKeys sends 100,000 distinct keys, then
// 50,000 more: with the default bound of 100,000 buckets, the second wave
// must not grow the heap the way the first did (unbounded, it would grow
// by half as much again).
func TestRateMemoryIsBoundedUnderManyKeys(t *testing.T) {
	if raceEnabled {
		t.Skip("heap measurements run without the race detector (.ci/run's allocation step)")
	}
	var calls atomic.Int64
	layer := limit.Rate(rate.Every(time.Hour), 1, limit.WithKey(func(_ context.Context, req mcp.CallToolRequest) string {
		return req.Params.Name
	}))
	h := layer(counting(&calls))
	keys := make([]string, limit.DefaultMaxKeys+50_000)
	for i := range keys {
		keys[i] = fmt.Sprintf("caller-%07d", i)
	}
	var req mcp.CallToolRequest
	ctx := context.Background()
	base := liveHeap()
	for _, k := range keys[:limit.DefaultMaxKeys] {
		req.Params.Name = k
		_, _ = h(ctx, req)
	}
	first := liveHeap()
	for _, k := range keys[limit.DefaultMaxKeys:] {
		req.Params.Name = k
		_, _ = h(ctx, req)
	}
	second := liveHeap()
	grew := first - base
	more := second - first
	t.Logf("heap: +%d KiB for the first 100,000 keys, %+d KiB for 50,000 more; %d calls accepted", grew>>10, more>>10, calls.Load())
	require.Positive(t, grew)
	assert.Less(t, more, grew/4, "memory grows with the number of keys beyond the bound")
	assert.LessOrEqual(t, calls.Load(), int64(limit.DefaultMaxKeys+1), "keys beyond the bound share one overflow bucket")
	runtime.KeepAlive(h)
	runtime.KeepAlive(keys)
}
