package limit

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"sync"
	"sync/atomic"
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
// Memory is bounded: a bucket idle long enough to have refilled is the
// same as a new one and is evicted, and at most [WithMaxKeys] buckets
// (default [DefaultMaxKeys]) exist at once; keys beyond that share one
// overflow bucket until room is made, so existing callers keep their
// budgets. An allowed call costs well under a microsecond and does not
// allocate once its key has a bucket.
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
			k := bucketKey{key: o.key(ctx, req)}
			if o.perTool {
				k.tool = req.Params.Name
			}
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

type bucketKey struct{ tool, key string }

type bucket struct {
	lim  *rate.Limiter
	seen atomic.Int64 // UnixNano of the last call
}

type shard struct {
	mu        sync.Mutex
	m         map[bucketKey]*bucket
	lastSweep int64
	_         [32]byte // keep shards' locks on separate cache lines
}

// buckets is a bounded, sharded map of token buckets.
type buckets struct {
	r        rate.Limit
	burst    int
	idle     int64 // ns after which an unused bucket is full again
	perShard int
	seed     maphash.Seed
	global   *rate.Limiter // the "" key of a layer that is not per tool
	overflow *bucket
	shards   [shardCount]shard
}

func newBuckets(r rate.Limit, burst, maxKeys int) *buckets {
	fill := time.Duration(float64(burst) / float64(r) * float64(time.Second))
	b := &buckets{
		r: r, burst: burst,
		idle:     max(int64(fill), int64(time.Millisecond)),
		perShard: max(1, (maxKeys+shardCount-1)/shardCount),
		seed:     maphash.MakeSeed(),
		global:   rate.NewLimiter(r, burst),
		overflow: &bucket{lim: rate.NewLimiter(r, burst)},
	}
	for i := range b.shards {
		b.shards[i].m = make(map[bucketKey]*bucket)
	}
	return b
}

// allow takes a token from k's bucket, or reports how long until one is
// there.
func (b *buckets) allow(k bucketKey, now time.Time) (time.Duration, bool) {
	lim := b.global
	if k != (bucketKey{}) {
		lim = b.get(k, now).lim
	}
	if lim.AllowN(now, 1) {
		return 0, true
	}
	missing := 1 - lim.TokensAt(now)
	wait := time.Duration(missing / float64(b.r) * float64(time.Second))
	return max(wait, time.Millisecond), false
}

func (b *buckets) get(k bucketKey, now time.Time) *bucket {
	h := maphash.String(b.seed, k.key)
	if k.tool != "" {
		h ^= maphash.String(b.seed, k.tool)
	}
	s := &b.shards[h%shardCount]
	ns := now.UnixNano()
	s.mu.Lock()
	e, ok := s.m[k]
	if !ok {
		b.sweep(s, ns, len(s.m) >= b.perShard)
		if len(s.m) >= b.perShard {
			s.mu.Unlock()
			return b.overflow
		}
		e = &bucket{lim: rate.NewLimiter(b.r, b.burst)}
		s.m[k] = e
	}
	e.seen.Store(ns) // under the lock, so a sweep never evicts a bucket in use
	s.mu.Unlock()
	return e
}

// sweepEvery is how often a shard with room still drops its idle buckets,
// so that memory follows the live keys rather than the peak.
const sweepEvery = int64(10 * time.Second)

// sweep evicts the shard's buckets that have been idle long enough to be
// full again: when the shard is full, at most once per idle period (so that
// a shard of busy keys is not rescanned for every new key), else every
// sweepEvery.
func (b *buckets) sweep(s *shard, now int64, full bool) {
	every := max(b.idle, sweepEvery)
	if full {
		every = b.idle
	}
	if now-s.lastSweep < every {
		return
	}
	s.lastSweep = now
	for k, e := range s.m {
		if now-e.seen.Load() >= b.idle {
			delete(s.m, k)
		}
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
