package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/rueidis"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/core/limit"
)

// DefaultPrefix starts the name of every key the store writes, so that
// its keys stand apart from an application's on the same Redis; give
// each server its own with [WithPrefix].
const DefaultPrefix = "mcpguard:rate:"

// Store keeps rate-limit buckets in Redis, shared by every replica that
// uses the same Redis and prefix. It is a limit.Store for the WithStore
// option of github.com/mcpguard/mcpguard/limit and gosdk/limit. It is
// safe for concurrent use.
type Store struct {
	client rueidis.Client
	prefix string
	owned  bool // Open made the client: Close closes it
}

// New returns the store on client, which stays the caller's to close.
// It panics if client is nil.
func New(client rueidis.Client, opts ...Option) *Store {
	if client == nil {
		panic("redisstore: New with a nil client")
	}
	o := evaluate(opts)
	return &Store{client: client, prefix: o.prefix}
}

// Open connects to the Redis at url (redis://[user:password@]host:port[/db],
// rediss:// for TLS) and returns the store on it; [Store.Close] closes the
// connection. It fails if Redis cannot be reached now: a server starts
// with a working store or not at all, and once running decides without
// it, fail open or closed, while Redis is away, and uses it again when it
// is back.
func Open(url string, opts ...Option) (*Store, error) {
	o, err := rueidis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redisstore: %w", err)
	}
	o.DisableCache = true // a script's verdict is never cached
	// A Redis that hangs is noticed in a second, not the client's default
	// ten, so that calls abandoned at their deadline do not pile up.
	o.Dialer.Timeout = time.Second
	o.ConnWriteTimeout = time.Second
	// Every call goes through the pipeline, so that a call abandoned at its
	// deadline leaves the connection to the others instead of closing it.
	o.AlwaysPipelining = true
	client, err := rueidis.NewClient(o)
	if err != nil {
		return nil, fmt.Errorf("redisstore: connect to %s: %w", o.InitAddress, err)
	}
	s := New(client, opts...)
	s.owned = true
	return s, nil
}

// Close closes the connection [Open] made; a store made with [New]
// leaves its client open.
func (s *Store) Close() {
	if s.owned {
		s.client.Close()
	}
}

// Limiter returns the buckets of a limit of r calls per second in bursts
// of burst. It panics unless r is finite and positive and burst >= 1.
func (s *Store) Limiter(r rate.Limit, burst int) limit.Limiter {
	if !(r > 0) || r == rate.Inf || burst < 1 {
		panic(fmt.Sprintf("redisstore: Limiter(%v, %d): need a finite positive rate and a burst of at least 1", float64(r), burst))
	}
	return &limiter{
		s: s,
		// The emission interval in microseconds, formatted once.
		interval: strconv.FormatFloat(1e6/float64(r), 'f', -1, 64),
		burst:    strconv.Itoa(burst),
	}
}

type limiter struct {
	s               *Store
	interval, burst string
}

// ErrAnswer is the error of a verdict Redis answered with something other
// than the script's: a store of another kind on that key, or not Redis.
var ErrAnswer = errors.New("redisstore: Redis answered something other than a rate-limit verdict")

// Take asks Redis for a token from the bucket of tool and key: one round
// trip, EVALSHA of the store's script (EVAL when Redis does not know it
// yet, after a restart or a SCRIPT FLUSH).
func (l *limiter) Take(ctx context.Context, tool, key string) (time.Duration, bool, error) {
	name := limit.StoreKey(l.s.prefix, tool, key)
	c := l.s.client
	resp := c.Do(ctx, c.B().Evalsha().Sha1(gcraSHA1).Numkeys(1).Key(name).Arg(l.interval, l.burst).Build())
	if e, ok := rueidis.IsRedisErr(resp.Error()); ok && e.IsNoScript() {
		resp = c.Do(ctx, c.B().Eval().Script(gcra).Numkeys(1).Key(name).Arg(l.interval, l.burst).Build())
	}
	if err := resp.Error(); err != nil {
		return 0, false, err
	}
	us, err := resp.AsInt64()
	if err != nil || us < 0 {
		return 0, false, ErrAnswer
	}
	if us == 0 {
		return 0, true, nil
	}
	return time.Duration(us) * time.Microsecond, false, nil
}
