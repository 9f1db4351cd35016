package limit

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/time/rate"
)

// Rate limits calls with token buckets (golang.org/x/time/rate): each key
// gets r calls per second with bursts of up to burst calls. Keys come from
// [WithKey], by default [DefaultKey] (principal, else remote address, else
// one global bucket; never the session, which a client can mint);
// [WithPerTool] gives every tool its own buckets.
//
// A refused call never reaches the handler. It is answered with an
// execution_failed envelope, retryable, whose retry_after_ms says when the
// bucket will have a token again, and whose next step says to wait that
// long.
//
// Memory is bounded in bytes: at most [WithMaxKeys] buckets (default
// [DefaultMaxKeys]) exist at once, and each keeps at most 64 bytes of its
// key (a longer key is kept as its 32-byte SHA-256 digest), so the bound
// holds however long the keys and however slowly buckets refill. A
// bucket that is full again is the same as a new one and is evicted;
// keys beyond the bound share one overflow bucket until room is made, so
// existing callers keep their budgets. An allowed call costs well under a
// microsecond and does not allocate once its key has a bucket.
//
// Rate panics unless r > 0 and burst >= 1; rate.Inf turns it off.
func Rate(r rate.Limit, burst int, opts ...Option) server.ToolHandlerMiddleware {
	if !(r > 0) || burst < 1 {
		panic(fmt.Sprintf("limit: Rate(%v, %d): need a positive rate and a burst of at least 1", float64(r), burst))
	}
	o := evaluate(opts)
	if r == rate.Inf {
		return func(next server.ToolHandlerFunc) server.ToolHandlerFunc { return next }
	}
	b := newBuckets(r, burst, o.maxKeys)
	why := fmt.Sprintf("Rate limit reached: this server accepts %s per second from one caller, in bursts of at most %d.", formatRate(r), burst)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			tool := ""
			if o.perTool {
				tool = req.Params.Name
			}
			k := newKey(tool, o.key(ctx, req))
			if wait, ok := b.allow(k, time.Now()); !ok {
				return o.refuse(ctx, req, why, wait), nil
			}
			return next(ctx, req)
		}
	}
}

// formatRate says "1 call", "100 calls" or "0.5 calls".
func formatRate(r rate.Limit) string {
	switch {
	case r == 1:
		return "1 call"
	case r == rate.Limit(math.Trunc(float64(r))):
		return fmt.Sprintf("%d calls", int64(r))
	default:
		return fmt.Sprintf("%.3g calls", float64(r))
	}
}

const shardCount = 16

// maxKeyBytes is the longest key a bucket keeps as it is; a longer one is
// kept as its SHA-256 digest, so that every bucket costs a bounded number
// of bytes whatever its callers send.
const maxKeyBytes = 64

// bucketKey names a bucket. hashed says key is the SHA-256 digest of a
// longer key, so that no short key equals a long key's digest.
type bucketKey struct {
	tool, key string
	hashed    bool
}

// newKey makes the key of tool's (or, with tool empty, the layer's)
// bucket for key. Short keys are used as they are, with no allocation.
func newKey(tool, key string) bucketKey {
	if len(key) <= maxKeyBytes {
		return bucketKey{tool: tool, key: key}
	}
	h := sha256.New()
	_, _ = io.WriteString(h, key)
	return bucketKey{tool: tool, key: string(h.Sum(nil)), hashed: true}
}

type shard struct {
	mu        sync.Mutex
	m         map[bucketKey]*rate.Limiter
	lastSweep int64
	_         [32]byte // keep shards' locks on separate cache lines
}

// buckets is a bounded, sharded map of token buckets.
type buckets struct {
	r        rate.Limit
	burst    int
	perShard int
	seed     maphash.Seed
	global   *rate.Limiter // the "" key of a layer that is not per tool
	overflow *rate.Limiter
	shards   [shardCount]shard
}

func newBuckets(r rate.Limit, burst, maxKeys int) *buckets {
	b := &buckets{
		r: r, burst: burst,
		perShard: max(1, (maxKeys+shardCount-1)/shardCount),
		seed:     maphash.MakeSeed(),
		global:   rate.NewLimiter(r, burst),
		overflow: rate.NewLimiter(r, burst),
	}
	for i := range b.shards {
		b.shards[i].m = make(map[bucketKey]*rate.Limiter)
	}
	return b
}

// allow takes a token from k's bucket, or reports how long until one is
// there.
func (b *buckets) allow(k bucketKey, now time.Time) (time.Duration, bool) {
	if k == (bucketKey{}) {
		return b.take(b.global, now)
	}
	h := maphash.String(b.seed, k.key)
	if k.tool != "" {
		h ^= maphash.String(b.seed, k.tool)
	}
	s := &b.shards[h%shardCount]
	// The token is taken under the shard's lock, so that a sweep never
	// evicts a bucket between its lookup and its use.
	s.mu.Lock()
	wait, ok := b.take(b.get(s, k, now), now)
	s.mu.Unlock()
	return wait, ok
}

func (b *buckets) take(lim *rate.Limiter, now time.Time) (time.Duration, bool) {
	if lim.AllowN(now, 1) {
		return 0, true
	}
	missing := 1 - lim.TokensAt(now)
	wait := time.Duration(missing / float64(b.r) * float64(time.Second))
	return max(wait, time.Millisecond), false
}

// get returns k's bucket in s, which the caller has locked: a new one if
// there is room, else the overflow bucket.
func (b *buckets) get(s *shard, k bucketKey, now time.Time) *rate.Limiter {
	if lim, ok := s.m[k]; ok {
		return lim
	}
	b.sweep(s, now, len(s.m) >= b.perShard)
	if len(s.m) >= b.perShard {
		return b.overflow
	}
	if !k.hashed {
		k.key = strings.Clone(k.key) // not a slice of a larger string the map would keep alive
	}
	lim := rate.NewLimiter(b.r, b.burst)
	s.m[k] = lim
	return lim
}

// How often a shard drops the buckets that are full again. A full shard,
// whose new keys go to the overflow bucket meanwhile, does it at most every
// fullSweepEvery, so that a shard of busy keys is not rescanned for every
// new key; a shard with room every sweepEvery, so that memory follows the
// live keys rather than the peak. Neither depends on the rate: memory is
// bounded by the number of buckets, and how slowly a bucket refills only
// decides how soon it is full again, and evictable.
const (
	fullSweepEvery = int64(time.Second)
	sweepEvery     = int64(10 * time.Second)
)

// sweep evicts the shard's buckets that are full again: such a bucket is
// the same as a new one, so dropping it changes no caller's budget.
func (b *buckets) sweep(s *shard, now time.Time, full bool) {
	every := sweepEvery
	if full {
		every = fullSweepEvery
	}
	ns := now.UnixNano()
	if ns-s.lastSweep < every {
		return
	}
	s.lastSweep = ns
	for k, lim := range s.m {
		if lim.TokensAt(now) >= float64(b.burst) {
			delete(s.m, k)
		}
	}
}

// sweepAll sweeps every shard at now, for tests.
func (b *buckets) sweepAll(now time.Time) {
	for i := range b.shards {
		s := &b.shards[i]
		s.mu.Lock()
		s.lastSweep = 0
		b.sweep(s, now, false)
		s.mu.Unlock()
	}
}

// len reports how many buckets exist, for tests.
func (b *buckets) len() int {
	n := 0
	for i := range b.shards {
		s := &b.shards[i]
		s.mu.Lock()
		n += len(s.m)
		s.mu.Unlock()
	}
	return n
}
