package redisstore_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/redisstore"
	"github.com/mcpguard/mcpguard/redisstore/redistest"
)

// The flood of the issue: 48 callers on one key of Rate(5, 5), each
// calling as fast as it is answered.
const (
	floodCallers = 48
	floodCalls   = 25 // per caller: 1,200 decisions a run, 1.6 s with Redis hung: past the client's reconnection
	floodRate    = 5
	floodBurst   = 5
)

// floodResult is what a flood saw.
type floodResult struct {
	allowed, refused, undecided int64
	refusedUnavailable          int64 // fail closed: "store is unavailable"
	elapsed                     time.Duration
	latencies                   []time.Duration
}

// flood runs floodCallers goroutines of floodCalls decisions each on one
// key of lim, started together.
func flood(lim *limit.Shared, undecided *atomic.Int64) floodResult {
	var (
		allowed, refused, unavailable atomic.Int64
		mu                            sync.Mutex
		lat                           []time.Duration
		wg                            sync.WaitGroup
	)
	start := make(chan struct{})
	for range floodCallers {
		wg.Go(func() {
			<-start
			mine := make([]time.Duration, 0, floodCalls)
			for range floodCalls {
				t0 := time.Now()
				err := lim.AllowCall(context.Background(), "", "flood", "shop_search")
				mine = append(mine, time.Since(t0))
				switch {
				case err == nil:
					allowed.Add(1)
				case strings.HasPrefix(render(err).Message, "Rate limit could not be checked"):
					refused.Add(1)
					unavailable.Add(1)
				default:
					refused.Add(1)
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	slices.Sort(lat)
	return floodResult{allowed: allowed.Load(), refused: refused.Load(), undecided: undecided.Load(),
		refusedUnavailable: unavailable.Load(), elapsed: time.Since(t0), latencies: lat}
}

// bound is what a bucket of floodRate in bursts of floodBurst allows in
// d, and one for rounding.
func bound(d time.Duration) int64 {
	return floodBurst + int64(d.Seconds()*floodRate) + 1
}

func (f floodResult) String() string {
	q := func(p float64) time.Duration { return f.latencies[int(p*float64(len(f.latencies)-1))] }
	return fmt.Sprintf("allowed %d (bound %d in %s), refused %d (%d as store unavailable), decided without the store %d; latency p50 %s p99 %s p99.9 %s max %s",
		f.allowed, bound(f.elapsed), f.elapsed.Round(time.Millisecond), f.refused, f.refusedUnavailable, f.undecided, q(0.5), q(0.99), q(0.999), f.latencies[len(f.latencies)-1])
}

func floodLimit(store limit.Store, o limit.StoreOptions) (*limit.Shared, *atomic.Int64) {
	var undecided atomic.Int64
	o.Logger = slog.New(slog.DiscardHandler)
	o.OnUnavailable = func(context.Context, error) { undecided.Add(1) }
	return limit.NewShared(store, floodRate, floodBurst, o), &undecided
}

// latencyMargin is how far past its store call's deadline (at most 1.25
// times the timeout) a decision may end on a loaded machine: the
// scheduling of 48 callers on two shared cores. What it must catch is a
// decision held until the client gives a silent connection up, a second
// (Open's write timeout), which a hung Redis used to cause for every
// decision once the client's queue was full.
const latencyMargin = 500 * time.Millisecond

// A flood of callers on one key, with Redis healthy, hung (SIGSTOP) and
// killed, decided by the local bucket (the default) or fail closed:
// allowed calls stay within the store's bound plus the local bucket's,
// no decision outlives the store's deadline by more than scheduling, and
// fail closed refuses nothing for want of the store while Redis answers.
func TestAFloodCannotTurnTheLimitOff(t *testing.T) {
	t.Parallel()
	for _, state := range []string{"healthy", "hung", "killed"} {
		for _, mode := range []string{"local", "fail closed"} {
			t.Run(state+"/"+mode, func(t *testing.T) {
				if state != "healthy" {
					t.Parallel() // a Redis of its own; the healthy ones measure alone
				}
				srv := redistest.Start(t)
				lim, undecided := floodLimit(open(t, srv), limit.StoreOptions{FailClosed: mode == "fail closed"})
				require.Eventually(t, func() bool { // the store has answered: fail closed counts it up from here
					return lim.AllowCall(context.Background(), "", fmt.Sprint("warm-up-", time.Now().UnixNano()), "shop_search") == nil
				}, 10*time.Second, time.Millisecond)
				undecided.Store(0)
				switch state {
				case "hung":
					require.NoError(t, srv.Pause())
					defer func() { require.NoError(t, srv.Resume()) }()
				case "killed":
					require.NoError(t, srv.Stop())
				}
				if state != "healthy" && mode == "fail closed" {
					time.Sleep(limit.StoreDownAfter) // silent that long: down
				}
				f := flood(lim, undecided)
				t.Logf("Redis %s, %s: %s", state, mode, f)
				total := int64(floodCallers * floodCalls)
				require.Equal(t, total, f.allowed+f.refused, "every call decided")
				// The store's bucket and the local one each allow at most
				// their burst and rate over the flood.
				assert.LessOrEqual(t, f.allowed, 2*bound(f.elapsed), "a flood cannot turn the limit off")
				if state != "healthy" {
					assert.LessOrEqual(t, f.allowed, bound(f.elapsed), "without Redis, the local bucket alone decides")
					assert.Equal(t, total, f.undecided, "every call decided without the store is counted")
				}
				if state == "healthy" || mode == "local" {
					assert.Zero(t, f.refusedUnavailable, "nothing refused for want of a store that answers (or by the local bucket's mode)")
				}
				if state != "healthy" && mode == "fail closed" {
					assert.Equal(t, total, f.refusedUnavailable, "a store silent for StoreDownAfter is down: fail closed refuses every call")
				}
				if !raceEnabled {
					late := f.latencies[len(f.latencies)-1] - limit.DefaultStoreTimeout*5/4
					assert.Less(t, late, latencyMargin, "a decision outlived its store call's deadline by %s", late)
				}
			})
		}
	}
}

// Three replicas' guards on one Redis share a caller's counts with the
// same meaning as in process: three failures, one on each, and the fourth
// identical call is held back by any of them, quoting the failure;
// another caller, or other arguments, run; a success of the caller
// releases it on every replica; new credentials start over; the caller's
// one key expires a window after its last failure; a caller's flood of
// distinct failures stays within its bound.
func TestRepeatsShareTheCountThroughRedis(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	ctx := context.Background()
	var replicas [3]*limit.Repeats
	for i := range replicas {
		replicas[i] = limit.NewRepeats(3, time.Hour, open(t, srv), 1, testTimeout)
	}
	alice := limit.RepeatCall{Caller: limit.Caller{Session: "s-alice", Credential: "Bearer a"}, Tool: "shop_get", Args: []byte(`{"sku":"SKU-404"}`)}
	notFound := &envelope.Envelope{ErrorType: envelope.NotFound, Message: "no product SKU-404", NextSteps: []string{"List the SKUs first."}}
	for i, g := range replicas {
		tk, err := g.Admit(ctx, alice)
		require.NoError(t, err, "failure %d: the call runs", i)
		tk.Settle(ctx, notFound)
	}
	spelled := alice
	spelled.Args = []byte(` { "sku" : "SKU-\u0034\u0030\u0034" } `)
	for _, g := range replicas {
		_, err := g.Admit(ctx, spelled)
		env := render(err)
		assert.Equal(t, envelope.ExecutionFailed, env.ErrorType)
		assert.True(t, env.Retryable)
		assert.InDelta(t, 1000, env.RetryAfterMS, 200)
		assert.Contains(t, env.Message, "already failed 3 times")
		assert.Contains(t, env.Message, "not_found: no product SKU-404")
		assert.Contains(t, env.NextSteps, "List the SKUs first.")
		bob := alice
		bob.Caller.Session = "s-bob"
		_, err = g.Admit(ctx, bob)
		assert.NoError(t, err, "another caller")
		other := alice
		other.Args = []byte(`{"sku":"SKU-405"}`)
		_, err = g.Admit(ctx, other)
		assert.NoError(t, err, "other arguments")
	}
	c := raw(t, srv)
	keys, err := c.Do(ctx, c.B().Keys().Pattern(redisstore.DefaultPrefix+"guard:*").Build()).AsStrSlice()
	require.NoError(t, err)
	require.Len(t, keys, 1, "one key per caller")
	assert.Len(t, keys[0], len(redisstore.DefaultPrefix+"guard:")+64)
	ttl, err := c.Do(ctx, c.B().Pttl().Key(keys[0]).Build()).AsInt64()
	require.NoError(t, err)
	assert.Greater(t, ttl, int64(59*60*1000), "expires a window after the last failure")

	renewed := alice
	renewed.Caller.Credential = "Bearer b"
	_, err = replicas[1].Admit(ctx, renewed)
	require.NoError(t, err, "new credentials start over")
	for range 3 {
		tk, err := replicas[0].Admit(ctx, alice)
		require.NoError(t, err)
		tk.Settle(ctx, notFound)
	}
	_, err = replicas[2].Admit(ctx, alice)
	require.Error(t, err)
	write := alice
	write.Tool = "shop_put"
	tk, err := replicas[1].Admit(ctx, write)
	require.NoError(t, err)
	tk.Settle(ctx, nil)
	_, err = replicas[2].Admit(ctx, alice)
	require.NoError(t, err, "a success on one replica releases the caller on all")

	for i := range limit.RepeatMaxPerCaller + 50 {
		flood := alice
		flood.Args = []byte(fmt.Sprintf(`{"i":%d}`, i))
		tk, err := replicas[0].Admit(ctx, flood)
		require.NoError(t, err)
		tk.Settle(ctx, notFound)
	}
	fields, err := c.Do(ctx, c.B().Hlen().Key(keys[0]).Build()).AsInt64()
	require.NoError(t, err)
	assert.LessOrEqual(t, fields, int64(limit.RepeatMaxPerCaller+2), "a caller's calls are bounded")

	// A hung Redis cannot hold a call: the guard runs it.
	require.NoError(t, srv.Pause())
	defer func() { require.NoError(t, srv.Resume()) }()
	_, err = replicas[0].Admit(ctx, alice)
	assert.NoError(t, err, "without its store, the guard lets the call run")
}
