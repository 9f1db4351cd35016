package limit

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"golang.org/x/time/rate"
)

func TestBucketsEvictIdleKeysAndStayBounded(t *testing.T) {
	t.Parallel()
	const maxKeys = 1_600
	b := newBuckets(rate.Limit(10), 1, maxKeys) // a bucket refills in 100 ms
	now := time.Unix(1_000_000, 0)
	for i := range 10 * maxKeys {
		b.allow(bucketKey{key: fmt.Sprintf("k%d", i)}, now)
	}
	assert.LessOrEqual(t, b.len(), maxKeys, "never more buckets than the bound")

	// Once the buckets have refilled, new keys replace them instead of
	// going to the overflow bucket.
	later := now.Add(200 * time.Millisecond)
	for i := range maxKeys {
		_, ok := b.allow(bucketKey{key: fmt.Sprintf("new%d", i)}, later)
		// Keys hash to shards at random (a per-process seed): a shard fills
		// up before the others, but not before half the keys, whose mean
		// share is half a shard (many standard deviations away).
		assert.True(t, ok || i >= maxKeys/2, "key %d refused although idle buckets could be evicted", i)
	}
	assert.LessOrEqual(t, b.len(), maxKeys)

	// A shard with room drops its idle buckets every sweepEvery.
	muchLater := later.Add(time.Duration(sweepEvery) + time.Second)
	b.allow(bucketKey{key: "trigger"}, muchLater)
	assert.Less(t, b.len(), maxKeys)
}

func TestBucketsKeepBusyKeysBudgets(t *testing.T) {
	t.Parallel()
	b := newBuckets(rate.Limit(1.0/3600), 1, 16)
	now := time.Unix(1_000_000, 0)
	_, ok := b.allow(bucketKey{key: "alice"}, now)
	assert.True(t, ok)
	for i := range 1_000 {
		b.allow(bucketKey{key: fmt.Sprintf("attacker%d", i)}, now.Add(time.Duration(i)*time.Millisecond))
	}
	wait, ok := b.allow(bucketKey{key: "alice"}, now.Add(time.Second))
	assert.False(t, ok, "many new keys must not reset an existing key's bucket")
	assert.Greater(t, wait, 59*time.Minute)
}
