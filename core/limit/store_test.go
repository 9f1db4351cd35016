package limit_test

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
)

func TestStoreKeyIsUnambiguousAndBounded(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "p:0:alice", limit.StoreKey("p:", "", "alice"))
	assert.Equal(t, "p:11:shop_searchalice", limit.StoreKey("p:", "shop_search", "alice"))
	assert.NotEqual(t, limit.StoreKey("p:", "ab", "c"), limit.StoreKey("p:", "a", "bc"), "no other split of the same bytes")
	long := limit.StoreKey("p:", "shop_search", strings.Repeat("k", 1<<20))
	assert.Len(t, long, len("p:")+66, "a megabyte key is kept as its digest")
	assert.True(t, strings.HasPrefix(long, "p:h:"))
	assert.NotEqual(t, long, limit.StoreKey("p:", "shop_searchk", strings.Repeat("k", 1<<20-1)))
	assert.Equal(t, long, limit.StoreKey("p:", "shop_search", strings.Repeat("k", 1<<20)))
}

// deadlineStore records the deadline of each call's context.
type deadlineStore struct{ left []time.Duration }

func (d *deadlineStore) Limiter(rate.Limit, int) limit.Limiter { return d }

func (d *deadlineStore) Take(ctx context.Context, _, _ string) (time.Duration, bool, error) {
	dl, ok := ctx.Deadline()
	if !ok {
		return 0, false, context.Canceled
	}
	d.left = append(d.left, time.Until(dl))
	return 0, true, nil
}

func TestSharedGivesEveryStoreCallItsDeadline(t *testing.T) {
	t.Parallel()
	store := &deadlineStore{}
	const timeout = time.Hour // so that the test's own pace cannot matter
	s := limit.NewShared(store, 1, 1, limit.StoreOptions{Timeout: timeout})
	for range 100 {
		require.NoError(t, s.Allow(context.Background(), "", "alice"))
	}
	for _, left := range store.left {
		assert.LessOrEqual(t, left, timeout+timeout/4)
		assert.Greater(t, left, timeout-time.Minute)
	}
}

func TestSharedWithTheMemoryStoreIsTheInProcessRate(t *testing.T) {
	t.Parallel()
	s := limit.NewShared(limit.MemoryStore(16), rate.Every(time.Hour), 1, limit.StoreOptions{})
	ctx := context.Background()
	require.NoError(t, s.Allow(ctx, "", "alice"))
	env := render(s.Allow(ctx, "", "alice"))
	assert.Equal(t, envelope.ExecutionFailed, env.ErrorType)
	assert.InDelta(t, time.Hour.Milliseconds(), env.RetryAfterMS, 1000)
	require.NoError(t, s.Allow(ctx, "shop_report", "alice"), "another tool, another bucket")
}

func TestSharedAllowedCallsWithTheMemoryStoreDoNotAllocate(t *testing.T) {
	s := limit.NewShared(limit.MemoryStore(16), 1e9, 1e9, limit.StoreOptions{})
	ctx := context.Background()
	_ = s.Allow(ctx, "", "alice")
	if n := testing.AllocsPerRun(1000, func() { _ = s.Allow(ctx, "", "alice") }); n != 0 {
		t.Errorf("%.0f allocations per allowed call, want 0", n)
	}
}

func TestNewSharedPanicsOnBadConfiguration(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() { limit.NewShared(nil, 1, 1, limit.StoreOptions{}) })
	assert.Panics(t, func() { limit.NewShared(limit.MemoryStore(1), 0, 1, limit.StoreOptions{}) })
	assert.Panics(t, func() { limit.NewShared(limit.MemoryStore(1), rate.Inf, 1, limit.StoreOptions{}) })
	assert.Panics(t, func() { limit.NewShared(limit.MemoryStore(1), 1, 0, limit.StoreOptions{}) })
	assert.Panics(t, func() { limit.NewShared(limit.MemoryStore(1), 1, 1, limit.StoreOptions{Timeout: -1}) })
	assert.Panics(t, func() { limit.MemoryStore(0) })
}

// liar refuses every call with a wait no bucket gives, or fails with err.
type liar struct {
	wait time.Duration
	err  error
}

func (l liar) Limiter(rate.Limit, int) limit.Limiter { return l }
func (l liar) Take(context.Context, string, string) (time.Duration, bool, error) {
	return l.wait, false, l.err
}

func TestSharedKeepsAStoresWaitWithinOneToken(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		r    rate.Limit
		wait time.Duration
		want int64 // retry_after_ms
	}{
		{10, time.Hour, 101},
		{10, -time.Hour, 1},
		{10, 0, 1},
		{1e-12, time.Hour, time.Hour.Milliseconds()}, // a token takes 30,000 years: the store's wait stands
	} {
		s := limit.NewShared(liar{wait: c.wait}, c.r, 1, limit.StoreOptions{})
		env := render(s.Allow(context.Background(), "", "alice"))
		assert.Equal(t, c.want, env.RetryAfterMS, "rate %v, store's wait %s", float64(c.r), c.wait)
	}
}

// missStore misses every other call's deadline (odd calls, from the
// first), and decides the others by an in-process bucket that allows
// everything: a store that answers, only not every call in time.
type missStore struct{ n atomic.Int64 }

func (m *missStore) Limiter(rate.Limit, int) limit.Limiter { return m }
func (m *missStore) Take(context.Context, string, string) (time.Duration, bool, error) {
	if m.n.Add(1)%2 == 1 {
		return 0, false, context.DeadlineExceeded
	}
	return 0, true, nil
}

// A call the store misses is decided by the local bucket of its key, at
// the full rate or, with Replicas, at this replica's share; fail open
// allows it; a key every caller shares says so in its refusal.
func TestSharedDecidesAMissedCallByTheLocalBucket(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	down := liar{err: context.DeadlineExceeded}
	quiet := slog.New(slog.DiscardHandler)
	allowed := func(s *limit.Shared, key string, n int) (got int) {
		for range n {
			if s.AllowCall(ctx, "", key, "shop_search") == nil {
				got++
			}
		}
		return got
	}
	full := limit.NewShared(down, rate.Every(time.Hour), 4, limit.StoreOptions{Logger: quiet})
	assert.Equal(t, 4, allowed(full, "alice", 10), "the local bucket allows the burst, then refuses")
	assert.Equal(t, 4, allowed(full, "bob", 10), "a bucket per key")
	share := limit.NewShared(down, rate.Every(time.Hour), 4, limit.StoreOptions{Logger: quiet, Replicas: 2})
	assert.Equal(t, 2, allowed(share, "alice", 10), "one of two replicas: half the burst")
	open := limit.NewShared(down, rate.Every(time.Hour), 4, limit.StoreOptions{Logger: quiet, FailOpen: true})
	assert.Equal(t, 10, allowed(open, "alice", 10), "fail open: no limit")
	env := render(full.AllowCall(ctx, "", "", "shop_search"))
	for range 4 {
		env = render(full.AllowCall(ctx, "", "", "shop_search"))
	}
	assert.Equal(t, "Rate limit reached: this server accepts 0.000278 calls per second from all callers together, in bursts of at most 4.", env.Message)
}

// Fail closed refuses for want of the store only once the store has
// given no verdict for StoreDownAfter: a store that answers every other
// call is not down, and the local bucket decides the calls it misses, and
// those after a miss until a probe finds it answering.
func TestSharedFailsClosedOnlyWhenTheStoreIsDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := limit.NewShared(&missStore{}, 1e6, 1e6, limit.StoreOptions{FailClosed: true, Logger: slog.New(slog.DiscardHandler)})
	assert.Contains(t, render(s.AllowCall(ctx, "", "alice", "t")).Message, "store is unavailable", "never answered: down")
	require.Eventually(t, func() bool { return s.AllowCall(ctx, "", "alice", "t") == nil }, 10*time.Second, time.Millisecond,
		"a probe finds the store answering")
	for range 100 {
		require.NoError(t, s.AllowCall(ctx, "", "alice", "t"), "the store answers: a missed call is the local bucket's")
	}
	require.Contains(t, render(limit.NewShared(liar{err: context.DeadlineExceeded}, 1, 1, limit.StoreOptions{FailClosed: true, Logger: slog.New(slog.DiscardHandler)}).
		AllowCall(ctx, "", "alice", "t")).Message, "store is unavailable")
}
