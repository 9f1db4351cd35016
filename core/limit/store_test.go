package limit_test

import (
	"context"
	"strings"
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

// liar refuses every call with a wait no bucket gives.
type liar struct{ wait time.Duration }

func (l liar) Limiter(rate.Limit, int) limit.Limiter { return l }
func (l liar) Take(context.Context, string, string) (time.Duration, bool, error) {
	return l.wait, false, nil
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
		s := limit.NewShared(liar{c.wait}, c.r, 1, limit.StoreOptions{})
		env := render(s.Allow(context.Background(), "", "alice"))
		assert.Equal(t, c.want, env.RetryAfterMS, "rate %v, store's wait %s", float64(c.r), c.wait)
	}
}
