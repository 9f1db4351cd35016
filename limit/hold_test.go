package limit_test

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
)

// runs records when the handler ran.
type runs struct {
	mu sync.Mutex
	at []time.Time
}

func (r *runs) handler(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	r.mu.Lock()
	r.at = append(r.at, time.Now())
	r.mu.Unlock()
	return mcp.NewToolResultText("ok"), nil
}

// mostInAWindow is the most runs within any window of one second: a
// token bucket of rate r and burst b admits at most b + r of them.
func (r *runs) mostInAWindow() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	most := 0
	for i, start := range r.at {
		n := 0
		for _, t := range r.at[i:] {
			if t.Sub(start) < time.Second {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

// dial connects mcp-go's in-process client to s at protocol.
func dial(t *testing.T, s *server.MCPServer, protocol string) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClientWithOptions(s, client.WithProtocolVersion(protocol))
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, c.Start(ctx))
	t.Cleanup(func() { _ = c.Close() })
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = protocol
	init.Params.ClientInfo = mcp.Implementation{Name: "hold_test", Version: "1"}
	res, err := c.Initialize(ctx, init)
	require.NoError(t, err)
	require.Equal(t, protocol, res.ProtocolVersion)
	return c
}

// burst calls shop_search n times, one every 1/perSecond, each in its own
// goroutine as an agent's parallel calls are, and counts the answers that
// were refusals (an envelope) or errors.
func burst(ctx context.Context, c *client.Client, n int, perSecond float64) (refused, failed int) {
	var wg sync.WaitGroup
	var r, f atomic.Int64
	tick := time.NewTicker(time.Duration(float64(time.Second) / perSecond))
	defer tick.Stop()
	for i := range n {
		if i > 0 {
			<-tick.C
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var req mcp.CallToolRequest
			req.Params.Name = "shop_search"
			res, err := c.CallTool(ctx, req)
			switch {
			case err != nil:
				f.Add(1)
			case res.IsError:
				r.Add(1)
			}
		}()
	}
	wg.Wait()
	return int(r.Load()), int(f.Load())
}

// holdServer is a server of shop_search behind Default with a Rate layer
// of r in bursts of b.
func holdServer(h *runs, r rate.Limit, b int, opts ...limit.Option) *server.MCPServer {
	s := server.NewMCPServer("hold", "1")
	s.Use(middleware.Default(middleware.WithLimits(limit.Rate(r, b, opts...)))...)
	s.AddTool(tool, h.handler)
	return s
}

// TestRateHoldsABurstOfAModernClient: a burst at twice the rate from
// mcp-go's 2026-07-28 client: without holding about half its calls are
// refused (each a model turn); with it (the default) none is, and the
// handler never runs faster than the rate. Before this change the
// default answered like WithHoldCap(0).
func TestRateHoldsABurstOfAModernClient(t *testing.T) {
	const r, b, n = 50, 5, 100 // 100 calls at 100 a second: 2 s at twice the rate
	ctx := context.Background()
	for name, opts := range map[string][]limit.Option{"no hold": {limit.WithHoldCap(0)}, "default": nil} {
		t.Run(name, func(t *testing.T) {
			h := &runs{}
			c := dial(t, holdServer(h, r, b, opts...), mcp.ProtocolVersion20260728)
			refused, failed := burst(ctx, c, n, 2*r)
			t.Logf("%s: %d of %d calls refused, %d failed; most runs in a second %d", name, refused, n, failed, h.mostInAWindow())
			assert.Zero(t, failed)
			if opts == nil {
				assert.LessOrEqual(t, refused, n/50, "the model saw refusals the server could have absorbed")
			} else {
				assert.GreaterOrEqual(t, refused, n/4, "without holding, a burst at twice the rate is refused about half")
			}
			assert.LessOrEqual(t, h.mostInAWindow(), b+r+1, "the handler ran faster than the rate")
		})
	}
}

// TestRateAnswersOlderClientsAsBefore: a 2025-11-25 client gets its
// refusal at once, held or not: it cannot be told the call waits.
func TestRateAnswersOlderClientsAsBefore(t *testing.T) {
	h := &runs{}
	c := dial(t, holdServer(h, 1.0/3600, 1), mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	refused, failed := burst(context.Background(), c, 3, 1000)
	assert.Equal(t, 2, refused)
	assert.Zero(t, failed)
	assert.Len(t, h.at, 1)
}

// TestRateHoldsNoCallPastItsDeadlineNorALongWait: a wait beyond the
// cap, or beyond the call's deadline, is answered at once with the
// refusal, never held until the client gives up.
func TestRateHoldsNoCallPastItsDeadlineNorALongWait(t *testing.T) {
	h := &runs{}
	c := dial(t, holdServer(h, 0.5, 1), mcp.ProtocolVersion20260728) // a token every 2 s
	refused, failed := burst(context.Background(), c, 1, 1)
	require.Zero(t, refused+failed)
	// The next token is 2 s away: within the cap, beyond a 100 ms deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "shop_search"
	res, err := c.CallTool(ctx, req)
	require.NoError(t, err, "the call was held past its deadline")
	env, ok := envelope.FromResult(res)
	require.True(t, ok, "want the refusal: %+v", res)
	assert.Equal(t, envelope.ExecutionFailed, env.ErrorType)
	assert.Len(t, h.at, 1)
}

// TestRateFloodOfHeldCalls: a flood of parallel calls from one caller
// holds at most limit.HoldPerCaller of them at once; the rest are refused
// at once, the handler keeps to the rate, and once all are answered no
// goroutine is left behind.
func TestRateFloodOfHeldCalls(t *testing.T) {
	const r, flood = 200, 1000
	before := runtime.NumGoroutine()
	h := &runs{}
	s := holdServer(h, r, 1)
	c := dial(t, s, mcp.ProtocolVersion20260728)
	start := time.Now()
	refused, failed := burst(context.Background(), c, flood, 1e6)
	// The calls admitted: the burst, those held at once, and those held
	// in the room the tokens that came during the flood made.
	admitted := 1 + limit.HoldPerCaller + int(r*time.Since(start).Seconds()) + 1
	t.Logf("%d of %d refused, %d ran", refused, flood, len(h.at))
	assert.Zero(t, failed)
	assert.LessOrEqual(t, len(h.at), admitted, "more calls held than one caller's bound")
	assert.Equal(t, flood, refused+len(h.at))
	if !raceEnabled {
		// Held calls are admitted at the rate (their tokens reserved in
		// order, as the count above holds); when they run is up to the
		// scheduler, which wakes some late, together with the next ones:
		// a few more than the rate's in one second of run times on a busy
		// machine (203 against 202), and many more under the race
		// detector, whose thousand goroutines on two cores it slows
		// (248). A limit that held nothing would let the whole flood run.
		const lateWakeups = r / 20
		assert.LessOrEqual(t, h.mostInAWindow(), 1+r+1+lateWakeups)
	}
	_ = c.Close()
	require.Eventually(t, func() bool { return runtime.NumGoroutine() <= before+5 }, 10*time.Second, 10*time.Millisecond,
		"goroutines left behind: %d, before %d", runtime.NumGoroutine(), before)
}

// TestConcurrencyHoldsAModernClient: with one slot and no wait, parallel
// calls of a 2026-07-28 client are held until the slot frees and all
// succeed; those of a 2025-11-25 client are refused as before.
func TestConcurrencyHoldsAModernClient(t *testing.T) {
	for protocol, wantRefused := range map[string]bool{mcp.ProtocolVersion20260728: false, mcp.LATEST_LEGACY_PROTOCOL_VERSION: true} {
		t.Run(protocol, func(t *testing.T) {
			s := server.NewMCPServer("hold", "1")
			s.Use(middleware.Default(middleware.WithLimits(limit.Concurrency(1, limit.WithMaxWait(0))))...)
			var running, most atomic.Int64
			s.AddTool(tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				n := running.Add(1)
				defer running.Add(-1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				time.Sleep(20 * time.Millisecond)
				return mcp.NewToolResultText("ok"), nil
			})
			c := dial(t, s, protocol)
			refused, failed := burst(context.Background(), c, 5, 1e6)
			assert.Zero(t, failed)
			assert.Equal(t, wantRefused, refused > 0, "%d refused", refused)
			assert.EqualValues(t, 1, most.Load(), "more handlers ran at once than the slots")
		})
	}
}
