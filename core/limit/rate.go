package limit

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// DefaultMaxKeys bounds the buckets a [Rate] keeps, so many distinct keys
// (sessions, principals, or an attacker inventing them) cannot exhaust
// memory. Keys beyond it share one overflow bucket until room is made.
const DefaultMaxKeys = 100_000

// Rate is a bounded set of token buckets (golang.org/x/time/rate), one per
// key and, optionally, tool: each gets r calls per second with bursts of
// up to burst calls. It is safe for concurrent use.
//
// Memory is bounded in bytes: at most maxKeys buckets exist at once, and
// each keeps at most 64 bytes of its key (a longer key is kept as its
// 32-byte SHA-256 digest), however long the keys and however slowly
// buckets refill. A bucket that is full again is the same as a new one and
// is evicted; keys beyond the bound share one overflow bucket until room
// is made, so existing callers keep their budgets.
type Rate struct {
	r        rate.Limit
	burst    int
	perShard int
	seed     maphash.Seed
	global   *rate.Limiter // the "" key with no tool
	overflow *rate.Limiter
	why      string
	whyAll   string // the refusal for the key every caller shares
	shards   [shardCount]shard
}

// NewRate returns the buckets of a rate limit of r calls per second in
// bursts of burst, keeping at most maxKeys buckets. It panics unless
// r > 0, burst >= 1 and maxKeys >= 1; r may not be rate.Inf, which limits
// nothing (a front passes calls through instead).
func NewRate(r rate.Limit, burst, maxKeys int) *Rate {
	if !(r > 0) || r == rate.Inf || burst < 1 || maxKeys < 1 {
		panic(fmt.Sprintf("limit: NewRate(%v, %d, %d): need a finite positive rate, a burst of at least 1 and room for a key", float64(r), burst, maxKeys))
	}
	b := &Rate{
		r: r, burst: burst,
		perShard: max(1, (maxKeys+shardCount-1)/shardCount),
		seed:     maphash.MakeSeed(),
		global:   rate.NewLimiter(r, burst),
		overflow: rate.NewLimiter(r, burst),
		why:      rateWhy(r, burst),
		whyAll:   rateWhyAll(r, burst),
	}
	for i := range b.shards {
		b.shards[i].m = make(map[bucketKey]*rate.Limiter)
	}
	return b
}

// Allow takes a token from the bucket of key and tool (tool "" for a
// budget shared by every tool) at now. It returns nil, or the refusal to
// answer the call with: execution_failed, retryable, with retry_after_ms
// set to when the bucket has a token again. An allowed call with a key of
// at most 64 bytes does not allocate.
func (b *Rate) Allow(tool, key string, now time.Time) error {
	if wait, ok := b.allow(newKey(tool, key), now); !ok {
		return Refusal(b.whyOf(key), wait)
	}
	return nil
}

// Reserve takes a token from the bucket of key and tool that will be
// there within the wait within: it returns how long until it is, for the
// call to wait before it runs, or the refusal Allow returns when the
// token is further away (and takes nothing). A token reserved is taken
// now, so that the calls after it see the bucket that much emptier: held
// calls are admitted in the order they came, and never faster than the
// rate.
func (b *Rate) Reserve(tool, key string, now time.Time, within time.Duration) (time.Duration, error) {
	wait, ok := b.reserve(newKey(tool, key), now, within)
	if !ok {
		return 0, Refusal(b.whyOf(key), wait)
	}
	return wait, nil
}

// whyOf is the message of a refusal for key.
func (b *Rate) whyOf(key string) string {
	if key == "" {
		return b.whyAll
	}
	return b.why
}

// rateWhy is the message of a refusal by a limit of r calls per second
// in bursts of burst.
func rateWhy(r rate.Limit, burst int) string {
	return fmt.Sprintf("Rate limit reached: this server accepts %s per second from one caller, in bursts of at most %d.", formatRate(r), burst)
}

// rateWhyAll is the message of a refusal by a limit of r calls per second
// in bursts of burst whose one bucket every caller shares (the empty
// key): the budget is the server's, not the caller's.
func rateWhyAll(r rate.Limit, burst int) string {
	return fmt.Sprintf("Rate limit reached: this server accepts %s per second from all callers together, in bursts of at most %d.", formatRate(r), burst)
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

// maxKeyBytes is the most bytes of tool and key a bucket keeps as they
// are; longer ones are kept as their SHA-256 digest, so that every bucket
// costs a bounded number of bytes whatever its callers send.
const maxKeyBytes = 64

// bucketKey names a bucket. hashed says key is the SHA-256 digest of a
// longer key, so that no short key equals a long key's digest.
type bucketKey struct {
	tool, key string
	hashed    bool
}

// newKey makes the key of tool's (or, with tool empty, the layer's)
// bucket for key. Short ones are used as they are, with no allocation;
// when tool and key together are longer than maxKeyBytes, both go into
// the digest, since a front may take the tool name from the request too.
func newKey(tool, key string) bucketKey {
	if len(tool)+len(key) <= maxKeyBytes {
		return bucketKey{tool: tool, key: key}
	}
	return bucketKey{key: digest(tool, key), hashed: true}
}

// digest is the SHA-256 digest of tool and key, as 32 bytes of a string.
func digest(tool, key string) string {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(tool))) // so that no other split of the same bytes has this digest
	h.Write(n[:])
	_, _ = io.WriteString(h, tool)
	_, _ = io.WriteString(h, key)
	return string(h.Sum(nil))
}

type shard struct {
	mu        sync.Mutex
	m         map[bucketKey]*rate.Limiter
	lastSweep int64
	_         [32]byte // keep shards' locks on separate cache lines
}

// allow takes a token from k's bucket, or reports how long until one is
// there.
func (b *Rate) allow(k bucketKey, now time.Time) (time.Duration, bool) {
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

// reserve reserves a token of k's bucket that is there within the wait
// within, and reports how long until it is; or, when it is further away,
// reserves nothing and reports how long until the bucket has a token.
func (b *Rate) reserve(k bucketKey, now time.Time, within time.Duration) (time.Duration, bool) {
	lim := b.global
	var s *shard
	if k != (bucketKey{}) {
		h := maphash.String(b.seed, k.key)
		if k.tool != "" {
			h ^= maphash.String(b.seed, k.tool)
		}
		s = &b.shards[h%shardCount]
		s.mu.Lock()
		defer s.mu.Unlock()
		lim = b.get(s, k, now)
	}
	r := lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); r.OK() && d <= within {
		return d, true
	}
	r.CancelAt(now)
	return b.untilToken(lim, now), false
}

func (b *Rate) take(lim *rate.Limiter, now time.Time) (time.Duration, bool) {
	if lim.AllowN(now, 1) {
		return 0, true
	}
	return b.untilToken(lim, now), false
}

// untilToken is how long until lim has a whole token again (counting
// the tokens reserved ahead), at least a millisecond.
func (b *Rate) untilToken(lim *rate.Limiter, now time.Time) time.Duration {
	missing := 1 - lim.TokensAt(now)
	wait := time.Duration(missing / float64(b.r) * float64(time.Second))
	return max(wait, time.Millisecond)
}

// get returns k's bucket in s, which the caller has locked: a new one if
// there is room, else the overflow bucket.
func (b *Rate) get(s *shard, k bucketKey, now time.Time) *rate.Limiter {
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
func (b *Rate) sweep(s *shard, now time.Time, full bool) {
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
