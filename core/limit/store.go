package limit

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// A Store keeps the token buckets of rate limits: in process memory
// ([MemoryStore], the default of both fronts), or somewhere every replica
// of a server shares, such as Redis (github.com/mcpguard/mcpguard/redisstore),
// so that N replicas allow the rate once, not N times.
type Store interface {
	// Limiter returns the buckets of one limit: r calls per second (finite
	// and positive) in bursts of up to burst (at least 1), one bucket per
	// tool and key. A rate limit calls it once, when it is built.
	Limiter(r rate.Limit, burst int) Limiter
}

// A Limiter takes tokens from the buckets of one limit. It must be safe
// for concurrent use.
type Limiter interface {
	// Take takes a token from the bucket of tool and key (tool "" for a
	// budget every tool shares, key "" for one bucket every caller
	// shares). ok says the token was there; if not, wait is how long until
	// one is. A non-nil err says the store could not decide (it is down,
	// slow or answered something else): wait and ok are then ignored. Take
	// must return by ctx's deadline. ctx carries that deadline only, not
	// the values of the tool call's context (see [Shared]). An err that
	// wraps [ErrNoVerdict] says the store answered, only not with a
	// verdict for this bucket.
	//
	// Once a Take has failed, [Shared] asks the store for no caller's
	// bucket until it answers again: it probes it in the background, one
	// Take at a time, on the bucket of tool "" and key [StoreProbeKey].
	Take(ctx context.Context, tool, key string) (wait time.Duration, ok bool, err error)
}

// ErrNoVerdict is what the error of a [Limiter]'s Take wraps when the
// store answered, but with no verdict for this bucket (another program's
// value on its key): the call is decided without the store, as for any
// error, but the store is not down, and the next call asks it again.
var ErrNoVerdict = errors.New("limit: the store answered with no verdict for this bucket")

// StoreProbeKey is the key of the bucket a [Shared] rate limit takes a
// token from, tool "", to learn whether a store that failed answers
// again; no key of [Key] is spelled like it.
const StoreProbeKey = "probe\x00mcpguard"

// MemoryStore returns the in-process store: the buckets of [Rate], at
// most maxKeys per limit, in this process's memory only. It is the
// default; a server of one replica needs no other. It panics unless
// maxKeys >= 1.
func MemoryStore(maxKeys int) Store {
	if maxKeys < 1 {
		panic(fmt.Sprintf("limit: MemoryStore(%d): need room for a key", maxKeys))
	}
	return memoryStore(maxKeys)
}

type memoryStore int

func (m memoryStore) Limiter(r rate.Limit, burst int) Limiter {
	return memoryLimiter{NewRate(r, burst, int(m))}
}

type memoryLimiter struct{ b *Rate }

func (m memoryLimiter) Take(_ context.Context, tool, key string) (time.Duration, bool, error) {
	wait, ok := m.b.allow(newKey(tool, key), time.Now())
	return wait, ok, nil
}

// StoreKey is the name under which a shared store keeps the bucket of
// tool and key: prefix, then tool and key, unambiguously (the length of
// tool comes first), or, when tool and key together are longer than 64
// bytes, "h:" and the hex SHA-256 digest of both, so that a name is never
// longer than prefix plus 66 bytes whatever callers send.
func StoreKey(prefix, tool, key string) string {
	if len(tool)+len(key) <= maxKeyBytes {
		var n [3]byte // len(tool) <= 64: at most two digits
		return prefix + string(strconv.AppendInt(n[:0], int64(len(tool)), 10)) + ":" + tool + key
	}
	return prefix + "h:" + hex.EncodeToString([]byte(digest(tool, key)))
}

// Decider returns how a front's rate limit of r calls per second in
// bursts of burst decides a call of tool by key, taking from the bucket
// of bucket and key (bucket is tool for per-tool buckets, else ""): with
// the in-process buckets ([NewRate], at most maxKeys) when store is nil,
// else through store ([NewShared] with o, whose local buckets keep at
// most maxKeys too). It panics as those do.
func Decider(store Store, r rate.Limit, burst, maxKeys int, o StoreOptions) func(ctx context.Context, bucket, key, tool string) error {
	allow, _ := deciders(store, r, burst, maxKeys, o)
	return allow
}

// deciders returns the Decider of store and how its buckets reserve a
// token for a call that may wait (see [Shared.ReserveCall]).
func deciders(store Store, r rate.Limit, burst, maxKeys int, o StoreOptions) (allow func(ctx context.Context, bucket, key, tool string) error, reserve func(ctx context.Context, bucket, key, tool string, within time.Duration) (time.Duration, error)) {
	if store == nil {
		buckets := NewRate(r, burst, maxKeys)
		return func(_ context.Context, bucket, key, _ string) error { return buckets.Allow(bucket, key, time.Now()) },
			func(_ context.Context, bucket, key, _ string, within time.Duration) (time.Duration, error) {
				return buckets.Reserve(bucket, key, time.Now(), within)
			}
	}
	if o.MaxKeys == 0 {
		o.MaxKeys = maxKeys
	}
	s := NewShared(store, r, burst, o)
	return s.AllowCall, s.ReserveCall
}

// DefaultStoreTimeout is how long a [Shared] rate limit waits for its
// store's verdict before deciding without it. A loopback round trip
// takes tens of microseconds; 50 ms leaves room for a busy machine
// (measured on two shared cores under a flood of 48 callers, a
// decision's 99.9th percentile stayed within a few milliseconds; see
// docs/replicas.md) while a hung store holds a call no longer than
// that. A call the store misses is not let through: it is decided by
// the local bucket of its key (see [StoreOptions]).
const DefaultStoreTimeout = 50 * time.Millisecond

// DefaultStoreRetryAfter is the retry_after_ms of a call refused, fail
// closed, because the store did not decide.
const DefaultStoreRetryAfter = time.Second

// StoreDownAfter is how long a store must have given no verdict at all
// before a fail-closed [Shared] rate limit refuses the calls it misses:
// a store that answers, only not this call in time (a busy machine, a
// flood), is not down, and the local bucket decides that call instead.
const StoreDownAfter = time.Second

// StoreLogMessage is the message of the record a [Shared] rate limit
// logs when its store fails: once when an outage starts (then
// [StoreStillDownLogMessage] and [StoreBackLogMessage]), and for each call
// whose bucket the store answered with no verdict ([ErrNoVerdict]).
const StoreLogMessage = "mcpguard: rate-limit store unavailable"

// rateOutage are the messages of the records of a rate-limit store's
// outage.
var rateOutage = outageMessages{down: StoreLogMessage, still: StoreStillDownLogMessage, back: StoreBackLogMessage}

// StoreOptions says how a [Shared] rate limit treats its store.
//
// A call the store does not decide in time is decided, by default, by a
// bucket of the same rate and burst for the same tool and key kept in
// this process (the in-process store's, [NewRate]): each replica then
// enforces the full rate on its own, so that N replicas allow at most N
// times the rate while the store is away, as N replicas without a store
// do, and a flood that makes the store miss its deadline gains nothing.
// Replicas > 1 gives each replica its share instead, rate / Replicas.
//
// Once a store call has failed (timed out, or any error but
// [ErrNoVerdict]), the store is down: the calls after it are decided the
// same way at once, without asking or waiting for the store, while a
// probe in the background asks it again 100 ms later, then twice as long
// after each failed probe, up to 2 s, one probe at a time; the first
// probe it answers brings it back, and the calls after ask it again.
type StoreOptions struct {
	// Timeout bounds each call to the store; 0 means DefaultStoreTimeout.
	Timeout time.Duration
	// FailClosed refuses a call the store could not decide, with
	// execution_failed, retryable, retry_after_ms DefaultStoreRetryAfter,
	// once the store has given no verdict for StoreDownAfter; until then
	// the local bucket decides.
	FailClosed bool
	// FailOpen allows a call the store could not decide: no limit at all
	// while the store is away. FailClosed wins over it.
	FailOpen bool
	// Replicas, when above 1, is how many replicas share the store: the
	// local bucket of each allows rate / Replicas in bursts of
	// burst / Replicas (at least 1), so that all of them together stay
	// within the rate while the store is away.
	Replicas int
	// MaxKeys bounds the local buckets; 0 means DefaultMaxKeys.
	MaxKeys int
	// Logger gets the records of the store's outages: a warning when one
	// starts ([StoreLogMessage], with the tool and outcome of the call
	// that found the store down and the store's error), one at most every
	// [StoreLogEvery] while it lasts ([StoreStillDownLogMessage], with how
	// many calls were decided without the store), and one when it ends
	// ([StoreBackLogMessage]); and a warning for each call whose bucket
	// the store answered with no verdict. nil means slog.Default() at the
	// time.
	Logger *slog.Logger
	// OnUnavailable, if set, is called for each call decided without the
	// store, whether its own store call failed or the store was not asked
	// because it is down, with the store's last error: the hook for a
	// metric that counts such calls.
	OnUnavailable func(ctx context.Context, err error)
}

// The outcomes a record of a call decided without the store carries.
const (
	outcomeLocalAllowed = "allowed (local bucket)"
	outcomeLocalRefused = "refused (local bucket)"
	outcomeOpen         = "allowed (fail open)"
	outcomeClosed       = "refused (fail closed)"
)

// Shared is a rate limit whose buckets are in a [Store]: what a front
// asks when it was given one. It bounds each store call by a deadline and
// decides by a local bucket, or fail open, or fail closed, when the store
// cannot, at once while the store is down (see [StoreOptions]). It is
// safe for concurrent use.
type Shared struct {
	lim        Limiter
	local      bool     // an in-process limiter: no deadline to set
	fallback   *Rate    // the local buckets; nil when failing open
	breaker    *breaker // nil for an in-process limiter
	deadlines  deadlines
	failClosed bool
	lastAnswer atomic.Int64 // UnixNano of the store's last verdict, when failing closed
	logger     *slog.Logger
	hook       func(context.Context, error)
	why        string
	whyAll     string
	maxWait    time.Duration
}

// NewShared returns the rate limit of r calls per second in bursts of
// burst kept in store. It panics unless store is not nil, r is finite and
// positive, burst >= 1, and o.Timeout, o.Replicas and o.MaxKeys are not
// negative.
func NewShared(store Store, r rate.Limit, burst int, o StoreOptions) *Shared {
	switch {
	case store == nil:
		panic("limit: NewShared with a nil Store")
	case !(r > 0) || r == rate.Inf || burst < 1:
		panic(fmt.Sprintf("limit: NewShared(%v, %d): need a finite positive rate and a burst of at least 1", float64(r), burst))
	case o.Timeout < 0:
		panic(fmt.Sprintf("limit: store timeout %s: negative duration", o.Timeout))
	case o.Replicas < 0 || o.MaxKeys < 0:
		panic(fmt.Sprintf("limit: store replicas %d, max keys %d: need 0 or more", o.Replicas, o.MaxKeys))
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultStoreTimeout
	}
	lim := store.Limiter(r, burst)
	if lim == nil {
		panic(fmt.Sprintf("limit: the Store's Limiter(%v, %d) is nil", float64(r), burst))
	}
	_, local := lim.(memoryLimiter)
	s := &Shared{
		lim: lim, local: local, deadlines: deadlines{timeout: o.Timeout}, failClosed: o.FailClosed,
		logger: o.Logger, hook: o.OnUnavailable,
		why:     rateWhy(r, burst),
		whyAll:  rateWhyAll(r, burst),
		maxWait: oneToken(r),
	}
	if !o.FailOpen || o.FailClosed {
		s.fallback = localShare(r, burst, o.Replicas, o.MaxKeys)
	}
	if !local {
		s.breaker = newBreaker(rateOutage, o.Timeout, o.Logger, s.probe)
	}
	return s
}

// probe asks the store for a token from the bucket of [StoreProbeKey]:
// any verdict says it answers again.
func (s *Shared) probe(ctx context.Context) error {
	_, _, err := s.lim.Take(ctx, "", StoreProbeKey)
	if errors.Is(err, ErrNoVerdict) {
		err = nil // an answer all the same
	}
	if err == nil && s.failClosed {
		s.answered()
	}
	return err
}

// localShare is the local buckets of one of replicas replicas of a limit
// of r in bursts of burst.
func localShare(r rate.Limit, burst, replicas, maxKeys int) *Rate {
	if maxKeys == 0 {
		maxKeys = DefaultMaxKeys
	}
	if replicas > 1 {
		r, burst = r/rate.Limit(replicas), max(1, burst/replicas)
	}
	return NewRate(r, burst, maxKeys)
}

// oneToken is the longest a bucket of rate r can make a call wait: one
// token's time, and a millisecond for rounding; at most the longest
// Duration, for a rate so slow that its token takes longer.
func oneToken(r rate.Limit) time.Duration {
	ns := float64(time.Second)/float64(r) + float64(time.Millisecond)
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}

// Allow takes a token from the bucket of tool and key: AllowCall(ctx,
// tool, key, tool).
func (s *Shared) Allow(ctx context.Context, tool, key string) error {
	return s.AllowCall(ctx, tool, key, tool)
}

// AllowCall takes a token for a call of tool from the bucket of bucket
// and key (bucket "" for a budget every tool shares, key "" for one
// bucket every caller shares). It returns nil, or the refusal to answer
// the call with, as [Rate.Allow] does. When the store does not decide
// within the timeout, the call is decided as [StoreOptions] says, and
// logged with tool, and so is, at once, each call after it until the
// store answers again; when ctx itself has ended, AllowCall returns
// ctx.Err().
func (s *Shared) AllowCall(ctx context.Context, bucket, key, tool string) error {
	var (
		wait time.Duration
		ok   bool
		err  error
	)
	if err := ctx.Err(); err != nil {
		return err // the caller went away: no verdict is wanted
	}
	switch {
	case s.local:
		wait, ok, err = s.lim.Take(ctx, bucket, key)
	case !s.breaker.up():
		return s.undecided(ctx, bucket, key, tool, s.breaker.skip(), false)
	default:
		wait, ok, err = s.lim.Take(s.deadlines.get(), bucket, key)
	}
	if err != nil {
		return s.undecided(ctx, bucket, key, tool, err, true)
	}
	if s.failClosed {
		s.answered()
	}
	if ok {
		return nil
	}
	// A wait outside what one token can take is no verdict of a bucket of
	// this rate: keep retry_after_ms within it.
	return Refusal(s.whyOf(key), min(max(wait, time.Millisecond), s.maxWait))
}

// ReserveCall is AllowCall for a call that may wait up to within for its
// token: in process it reserves the token ([Rate.Reserve]) and returns
// how long until it is there; a shared store, which has no reservations,
// is asked as AllowCall asks it, and a call it refuses is asked again
// after the wait (see [Absorb]).
func (s *Shared) ReserveCall(ctx context.Context, bucket, key, tool string, within time.Duration) (time.Duration, error) {
	if m, ok := s.lim.(memoryLimiter); ok {
		return m.b.Reserve(bucket, key, time.Now(), within)
	}
	return 0, s.AllowCall(ctx, bucket, key, tool)
}

// answered notes that the store gave a verdict now; at most one write
// per millisecond, so that callers on many cores do not contend for it.
func (s *Shared) answered() {
	now := time.Now().UnixNano()
	if now-s.lastAnswer.Load() > int64(time.Millisecond) {
		s.lastAnswer.Store(now)
	}
}

// whyOf is the message of a refusal for key: the one every caller shares
// says so.
func (s *Shared) whyOf(key string) string {
	if key == "" {
		return s.whyAll
	}
	return s.why
}

// undecided answers a call the store did not decide: asked, it failed
// with err; else it is down, and err is its last error.
func (s *Shared) undecided(ctx context.Context, bucket, key, tool string, err error, asked bool) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr // the caller went away: no verdict is wanted
	}
	outcome, refusal := s.fallbackOf(bucket, key)
	attrs := func() []slog.Attr {
		return []slog.Attr{slog.String(logkey.Tool, tool), slog.String(logkey.Outcome, outcome)}
	}
	switch {
	case !asked: // counted by the breaker, logged once per outage
	case errors.Is(err, ErrNoVerdict): // the store is up: this bucket is not
		logger := s.logger
		if logger == nil {
			logger = slog.Default()
		}
		safe.Log(ctx, logger, slog.LevelWarn, StoreLogMessage, append(attrs(), slog.String(logkey.Error, safe.Error(err)))...)
	default:
		s.breaker.failed(ctx, err, attrs()...)
	}
	if s.hook != nil {
		_ = safe.Call(func() { s.hook(ctx, err) })
	}
	return refusal
}

// fallbackOf decides a call the store did not decide, by
// [StoreOptions]: the outcome its records carry, and the refusal to
// answer it with, or nil.
func (s *Shared) fallbackOf(bucket, key string) (string, error) {
	var refusal error
	outcome := outcomeOpen
	switch {
	case s.failClosed && time.Now().UnixNano()-s.lastAnswer.Load() >= int64(StoreDownAfter):
		outcome = outcomeClosed
		refusal = Refusal("Rate limit could not be checked: this server's shared rate-limit store is unavailable, so calls are refused until it is back.", DefaultStoreRetryAfter)
	case s.fallback != nil:
		outcome = outcomeLocalAllowed
		if wait, ok := s.fallback.allow(newKey(bucket, key), time.Now()); !ok {
			outcome = outcomeLocalRefused
			refusal = Refusal(s.whyOf(key), wait)
		}
	}
	return outcome, refusal
}

// deadlines hands out the contexts of store calls: each expires between
// timeout and 1.25 timeout from when it is handed out. A context of its
// own per call would cost four allocations (the context, its timer, the
// timer's function, its done channel), more than the store call itself;
// one context is shared instead by the calls of a quarter of the
// timeout. The store call does not carry the call's own context: it ends
// by its deadline whatever the caller does, and a caller that went away
// is noticed after it.
type deadlines struct {
	timeout time.Duration
	cur     atomic.Pointer[deadline]
	mu      sync.Mutex
}

type deadline struct {
	ctx    context.Context
	cancel context.CancelFunc
	until  int64 // UnixNano: handed out until then
}

func (d *deadlines) get() context.Context {
	now := time.Now().UnixNano()
	if c := d.cur.Load(); c != nil && now < c.until {
		return c.ctx
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if c := d.cur.Load(); c != nil && now < c.until {
		return c.ctx
	}
	slice := d.timeout / 4
	// The timer releases the context at its deadline; nothing ends it
	// sooner, since calls handed it may still run, so cancel is only kept.
	ctx, cancel := context.WithTimeout(context.Background(), d.timeout+slice)
	d.cur.Store(&deadline{ctx: ctx, cancel: cancel, until: now + int64(slice)})
	return ctx
}
