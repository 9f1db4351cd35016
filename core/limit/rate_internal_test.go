package limit

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"golang.org/x/time/rate"
)

// sweepAll sweeps every shard at now, whenever each was last swept.
func (b *Rate) sweepAll(now time.Time) {
	for i := range b.shards {
		s := &b.shards[i]
		s.mu.Lock()
		s.lastSweep = 0
		b.sweep(s, now, false)
		s.mu.Unlock()
	}
}

// len reports how many buckets exist.
func (b *Rate) len() int {
	n := 0
	for i := range b.shards {
		s := &b.shards[i]
		s.mu.Lock()
		n += len(s.m)
		s.mu.Unlock()
	}
	return n
}

func TestBucketsEvictIdleKeysAndStayBounded(t *testing.T) {
	t.Parallel()
	const maxKeys = 1_600
	b := NewRate(rate.Limit(10), 1, maxKeys) // a bucket refills in 100 ms
	now := time.Unix(1_000_000, 0)
	for i := range 10 * maxKeys {
		b.allow(newKey("", fmt.Sprintf("k%d", i)), now)
	}
	assert.LessOrEqual(t, b.len(), maxKeys, "never more buckets than the bound")

	// Once the buckets have refilled, and a full shard's next sweep is due,
	// new keys replace them instead of going to the overflow bucket.
	later := now.Add(time.Duration(fullSweepEvery))
	for i := range maxKeys {
		_, ok := b.allow(newKey("", fmt.Sprintf("new%d", i)), later)
		// Keys hash to shards at random (a per-process seed): a shard fills
		// up before the others, but not before half the keys, whose mean
		// share is half a shard (many standard deviations away).
		assert.True(t, ok || i >= maxKeys/2, "key %d refused although idle buckets could be evicted", i)
	}
	assert.LessOrEqual(t, b.len(), maxKeys)

	// A shard with room drops its idle buckets every sweepEvery.
	muchLater := later.Add(time.Duration(sweepEvery) + time.Second)
	b.allow(newKey("", "trigger"), muchLater)
	assert.Less(t, b.len(), maxKeys)
}

// TestBucketsEvictABucketOnceItIsFullAgain: eviction follows the tokens a
// bucket has, not the time a bucket takes to refill from empty. With
// Rate(0.1, 100), a bucket that spent one token is full again after 10 s,
// and evicted then, not after the 1,000 s a drained one needs.
func TestBucketsEvictABucketOnceItIsFullAgain(t *testing.T) {
	t.Parallel()
	// Room for 16 buckets in every shard: with one per shard, the two keys
	// would share a shard one run in 16 (the seed is random), and the
	// heavy user would get the overflow bucket.
	b := NewRate(rate.Limit(0.1), 100, 16*shardCount)
	now := time.Unix(1_000_000, 0)
	b.allow(newKey("", "light"), now)
	for range 100 {
		b.allow(newKey("", "heavy"), now)
	}
	b.sweepAll(now.Add(11 * time.Second))
	assert.Equal(t, 1, b.len(), "the light user's bucket is full again; the heavy user's is not")
	_, ok := b.allow(newKey("", "heavy"), now.Add(11*time.Second))
	assert.True(t, ok, "about one token back")
	_, ok = b.allow(newKey("", "heavy"), now.Add(11*time.Second))
	assert.False(t, ok, "the heavy user kept its drained bucket")
}

func TestBucketsKeepBusyKeysBudgets(t *testing.T) {
	t.Parallel()
	b := NewRate(rate.Limit(1.0/3600), 1, 16*shardCount)
	now := time.Unix(1_000_000, 0)
	_, ok := b.allow(newKey("", "alice"), now)
	assert.True(t, ok)
	for i := range 1_000 {
		b.allow(newKey("", fmt.Sprintf("attacker%d", i)), now.Add(time.Duration(i)*time.Millisecond))
	}
	wait, ok := b.allow(newKey("", "alice"), now.Add(time.Second))
	assert.False(t, ok, "many new keys must not reset an existing key's bucket")
	assert.Greater(t, wait, 59*time.Minute)
}

func TestLongKeysAreKeptAsADigest(t *testing.T) {
	t.Parallel()
	short := strings.Repeat("k", maxKeyBytes)
	assert.Equal(t, bucketKey{key: short}, newKey("", short))
	long := newKey("shop_search", strings.Repeat("k", 1<<20))
	assert.True(t, long.hashed)
	assert.Len(t, long.key, 32)
	assert.Empty(t, long.tool, "the tool is in the digest")
	assert.NotEqual(t, long, newKey("shop_searc", "h"+strings.Repeat("k", 1<<20)), "the same bytes split elsewhere are another key")
	assert.NotEqual(t, long, newKey("shop_report", strings.Repeat("k", 1<<20)))
	longTool := newKey(strings.Repeat("t", 1<<20), "alice")
	assert.True(t, longTool.hashed, "a long tool name is bounded too")
	assert.Len(t, longTool.key, 32)
	assert.Equal(t, long, newKey("shop_search", strings.Repeat("k", 1<<20)), "the same long key, the same bucket")
	assert.NotEqual(t, long, newKey("shop_search", strings.Repeat("k", 1<<20-1)+"j"))
	// A short key spelled like a long key's digest is another key.
	assert.NotEqual(t, long, newKey("shop_search", long.key))

	b := NewRate(rate.Limit(1.0/3600), 1, 16*shardCount)
	now := time.Unix(1_000_000, 0)
	_, ok := b.allow(long, now)
	assert.True(t, ok)
	_, ok = b.allow(newKey("shop_search", long.key), now)
	assert.True(t, ok, "the digest, sent as a key, has a bucket of its own")
	_, ok = b.allow(newKey("shop_search", strings.Repeat("k", 1<<20)), now)
	assert.False(t, ok)
}
