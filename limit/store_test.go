package limit_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	corelimit "github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// hungStore is a store that never answers: each Take waits for its
// context's deadline, as a call to a hung Redis does. deadlines counts
// the Takes of callers' buckets, not of the limit's probes.
type hungStore struct{ deadlines atomic.Int64 }

func (h *hungStore) Limiter(rate.Limit, int) limit.Limiter { return h }

func (h *hungStore) Take(ctx context.Context, _, key string) (time.Duration, bool, error) {
	if _, ok := ctx.Deadline(); ok && key != corelimit.StoreProbeKey {
		h.deadlines.Add(1)
	}
	<-ctx.Done()
	return 0, false, ctx.Err()
}

// flakyStore is the in-process store, hung while hung is set. asked
// counts the Takes of callers' buckets, not of the limit's probes.
type flakyStore struct {
	hung  atomic.Bool
	asked atomic.Int64
	inner limit.Store
}

func (f *flakyStore) Limiter(r rate.Limit, burst int) limit.Limiter {
	return flakyLimiter{f, f.inner.Limiter(r, burst)}
}

type flakyLimiter struct {
	f     *flakyStore
	inner limit.Limiter
}

func (l flakyLimiter) Take(ctx context.Context, tool, key string) (time.Duration, bool, error) {
	if key != corelimit.StoreProbeKey {
		l.f.asked.Add(1)
	}
	if l.f.hung.Load() {
		<-ctx.Done()
		return 0, false, ctx.Err()
	}
	return l.inner.Take(ctx, tool, key)
}

// lyingStore refuses every call with a wait no bucket of its rate gives.
type lyingStore struct{}

func (lyingStore) Limiter(rate.Limit, int) limit.Limiter { return lyingStore{} }
func (lyingStore) Take(context.Context, string, string) (time.Duration, bool, error) {
	return 1000 * time.Hour, false, nil
}

// seenStore is the in-process store, recording the tool and key of each
// call.
type seenStore struct {
	mu    sync.Mutex
	seen  []string
	inner limit.Store
}

func (s *seenStore) Limiter(r rate.Limit, burst int) limit.Limiter {
	return seenLimiter{s, s.inner.Limiter(r, burst)}
}

type seenLimiter struct {
	s     *seenStore
	inner limit.Limiter
}

func (l seenLimiter) Take(ctx context.Context, tool, key string) (time.Duration, bool, error) {
	l.s.mu.Lock()
	l.s.seen = append(l.s.seen, tool+"|"+key)
	l.s.mu.Unlock()
	return l.inner.Take(ctx, tool, key)
}

// A hung store's calls are decided by the local bucket of their key by
// default: the first of a burst of one is served, the next refused as
// the store would, each counted by the hook; only the first waits for
// the store, and only it is logged, with its tool. Not per tool: the
// record still names the tool.
func TestRateWithAHungStoreDecidesByTheLocalBucketByDefault(t *testing.T) {
	t.Parallel()
	var calls, undecided atomic.Int64
	var log syncBuffer
	store := &hungStore{}
	srv := middlewaretest.New(t, tool, counting(&calls), limit.Rate(slow, 1,
		limit.WithStore(store), limit.WithStoreTimeout(time.Millisecond),
		limit.WithLogger(slog.New(slog.NewTextHandler(&log, nil))),
		limit.WithOnStoreUnavailable(func(_ context.Context, err error) {
			if errors.Is(err, context.DeadlineExceeded) {
				undecided.Add(1)
			}
		})))
	srv.Call(nil).ExpectSuccess()
	for range 2 {
		srv.Call(nil).ExpectError(envelope.ExecutionFailed).ExpectMessage("Rate limit reached: this server accepts 0.000278 calls per second from all callers together")
	}
	assert.EqualValues(t, 1, calls.Load(), "the local bucket of one token served one call")
	assert.EqualValues(t, 1, store.deadlines.Load(), "the first call waited for the store, with a deadline; the others did not ask it")
	assert.EqualValues(t, 3, undecided.Load(), "the metric hook counts each, with the deadline's error")
	assert.Equal(t, 1, strings.Count(log.String(), `msg="mcpguard: rate-limit store unavailable" tool=shop_search outcome="allowed (local bucket)" error="context deadline exceeded"`), log.String())
	assert.Equal(t, 1, strings.Count(log.String(), "\n"), "one record of the outage, not one per call:\n%s", log.String())
}

// On the wire: once a call has waited for a hung store in vain, the calls
// after it are answered by the local bucket of their key without asking
// the store, one record says the store is unavailable, and once a probe
// finds it answering, the store decides again and one record says so.
func TestRateStopsWaitingForAHungStoreAndUsesItAgainWhenBack(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	var log syncBuffer
	store := &flakyStore{inner: limit.MemoryStore(16)}
	srv := middlewaretest.New(t, tool, counting(&calls), limit.Rate(slow, 1, limit.WithKey(byArgument),
		limit.WithStore(store), limit.WithStoreTimeout(20*time.Millisecond), limit.WithLogger(slog.New(slog.NewTextHandler(&log, nil)))))
	alice, bob := map[string]any{"key": "alice"}, map[string]any{"key": "bob"}
	srv.Call(alice).ExpectSuccess() // the store's bucket of alice is empty now, her local one full

	store.hung.Store(true)
	srv.Call(bob).ExpectSuccess()
	for range 20 {
		srv.Call(bob).ExpectError(envelope.ExecutionFailed).ExpectMessage("Rate limit reached: this server accepts 0.000278 calls per second from one caller").NoLeak()
	}
	assert.EqualValues(t, 2, store.asked.Load(), "after the first call that timed out, no call waited for the store")
	assert.Equal(t, 1, strings.Count(log.String(), `msg="mcpguard: rate-limit store unavailable"`), log.String())

	store.hung.Store(false)
	require.Eventually(t, func() bool {
		before := store.asked.Load()
		r := srv.Call(alice)
		return r.IsError() && store.asked.Load() > before // the store's verdict: her local bucket would allow
	}, 10*time.Second, time.Millisecond, "the store decides again once it answers")
	before := store.asked.Load()
	for range 3 {
		srv.Call(alice).ExpectError(envelope.ExecutionFailed).ExpectMessage("Rate limit reached")
	}
	assert.Equal(t, before+3, store.asked.Load(), "each call asks the store again")
	assert.Equal(t, 1, strings.Count(log.String(), `level=INFO msg="mcpguard: rate-limit store available again"`), log.String())
	assert.Equal(t, 1, strings.Count(log.String(), `msg="mcpguard: rate-limit store unavailable"`), log.String())
	assert.LessOrEqual(t, calls.Load(), int64(3), "alice once by the store, bob once by his local bucket, alice at most once by hers")
}

func TestRateWithAHungStoreFailsOpenWhenAskedTo(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	var log syncBuffer
	srv := middlewaretest.New(t, tool, counting(&calls), limit.Rate(slow, 1,
		limit.WithStore(&hungStore{}), limit.WithFailClosed(), limit.WithFailOpen(), limit.WithStoreTimeout(time.Millisecond),
		limit.WithLogger(slog.New(slog.NewTextHandler(&log, nil)))))
	for range 3 {
		srv.Call(nil).ExpectSuccess()
	}
	assert.EqualValues(t, 3, calls.Load(), "fail open: every call the store could not decide is served")
	assert.Equal(t, 1, strings.Count(log.String(), `tool=shop_search outcome="allowed (fail open)"`), "logged once:\n%s", log.String())
}

func TestRateWithAHungStoreFailsClosedWithAnEnvelope(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	srv := middlewaretest.New(t, tool, counting(&calls), limit.Rate(slow, 1,
		limit.WithStore(&hungStore{}), limit.WithFailClosed(), limit.WithStoreTimeout(time.Millisecond),
		limit.WithLogger(slog.New(slog.DiscardHandler)),
		limit.WithOnStoreUnavailable(func(context.Context, error) { panic("a broken metric") })))
	for range 3 {
		r := srv.Call(nil).ExpectError(envelope.ExecutionFailed).ExpectMessage("store is unavailable").ExpectNextStep("Wait 1000 ms").NoLeak()
		require.NotNil(t, r.Envelope)
		assert.True(t, r.Envelope.Retryable)
		assert.EqualValues(t, 1000, r.Envelope.RetryAfterMS)
		assert.Contains(t, string(r.Raw), `\"retry_after_ms\":1000`)
	}
	assert.Zero(t, calls.Load(), "a call refused fail closed never reaches the handler")
}

func TestRateKeepsAStoresWaitWithinOneToken(t *testing.T) {
	t.Parallel()
	srv := middlewaretest.New(t, tool, counting(new(atomic.Int64)), limit.Rate(1, 1, limit.WithStore(lyingStore{})))
	r := srv.Call(nil).ExpectError(envelope.ExecutionFailed).ExpectMessage("Rate limit reached")
	require.NotNil(t, r.Envelope)
	assert.LessOrEqual(t, r.Envelope.RetryAfterMS, int64(1001), "one token of 1 call/s is at most a second away")
}

func TestRateAsksTheStoreForTheKeyAndTool(t *testing.T) {
	t.Parallel()
	store := &seenStore{inner: limit.MemoryStore(16)}
	srv := middlewaretest.New(t, tool, counting(new(atomic.Int64)),
		limit.Rate(slow, 1, limit.WithStore(store), limit.WithKey(byArgument), limit.WithPerTool()))
	srv.Call(map[string]any{"key": "alice"}).ExpectSuccess()
	srv.Call(map[string]any{"key": "bob"}).ExpectSuccess()
	srv.Call(map[string]any{"key": "alice"}).ExpectError(envelope.ExecutionFailed).ExpectMessage("Rate limit reached")
	store.mu.Lock()
	defer store.mu.Unlock()
	assert.Equal(t, []string{"shop_search|alice", "shop_search|bob", "shop_search|alice"}, store.seen)
}

func TestStoreOptionsPanicOnBadConfiguration(t *testing.T) {
	t.Parallel()
	assert.PanicsWithValue(t, "limit: WithStore with a nil Store", func() { limit.WithStore(nil) })
	assert.Panics(t, func() { limit.WithStoreTimeout(0) })
	assert.Panics(t, func() { limit.WithOnStoreUnavailable(nil) })
	assert.Panics(t, func() { limit.WithStoreReplicas(0) })
	assert.Panics(t, func() { limit.MemoryStore(0) })
}
