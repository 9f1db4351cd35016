package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	client   rueidis.Client
	prefix   string
	owned    bool          // Open made the client: Close closes it
	inFlight chan struct{} // a slot per command sent and not yet answered
}

// MaxInFlight bounds the commands a [Store] has sent to Redis and not
// yet had answered, abandoned ones included. The client queues a
// connection's commands in a ring of 1,024 slots, and a command that
// waits for a slot does not heed its deadline: with Redis hung, a flood
// filled the ring within a second and every later decision waited for
// the connection to be given up, a second later. Half the ring leaves
// room for the client's own commands; a decision beyond it is not sent
// at all but answered at once with [ErrBusy], which a rate limit decides
// without the store (by the local bucket of its key, by default).
const MaxInFlight = 512

// ErrBusy is the error of a decision not sent because [MaxInFlight]
// commands are waiting for Redis already: Redis is not keeping up.
var ErrBusy = errors.New("redisstore: too many decisions waiting for Redis")

// New returns the store on client, which stays the caller's to close.
// It panics if client is nil.
func New(client rueidis.Client, opts ...Option) *Store {
	if client == nil {
		panic("redisstore: New with a nil client")
	}
	o := evaluate(opts)
	return &Store{client: client, prefix: o.prefix, inFlight: make(chan struct{}, MaxInFlight)}
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
// It wraps core/limit.ErrNoVerdict, as does Redis's WRONGTYPE error: the
// store answered, and a rate limit keeps asking it for other keys.
var ErrAnswer error = noVerdict{errors.New("redisstore: Redis answered something other than a rate-limit verdict")}

// noVerdict is an answer of Redis that is no verdict for the key it was
// asked about: Redis is up, that key is not usable.
type noVerdict struct{ error }

func (e noVerdict) Unwrap() []error { return []error{e.error, limit.ErrNoVerdict} }

// Take asks Redis for a token from the bucket of tool and key: one round
// trip, EVALSHA of the store's script (EVAL when Redis does not know it
// yet, after a restart or a SCRIPT FLUSH). It returns by ctx's deadline
// whatever Redis does: the command runs in a goroutine of its own, which
// holds one of [MaxInFlight] slots until Redis answers or the client
// gives the connection up, so that abandoned commands cannot fill the
// client's queue and hold later calls past their deadline.
func (l *limiter) Take(ctx context.Context, tool, key string) (time.Duration, bool, error) {
	c := calls.Get().(*call)
	c.l, c.name = l, limit.StoreKey(l.s.prefix, tool, key)
	v := l.s.send(ctx, c)
	return v.wait, v.ok, v.err
}

// send runs c on a goroutine of its own that holds an in-flight slot
// until Redis answers, and returns its verdict, or ctx's error at ctx's
// deadline, or ErrBusy at once when every slot is taken. c is the
// pool's again afterwards.
func (s *Store) send(ctx context.Context, c *call) verdict {
	select {
	case s.inFlight <- struct{}{}:
	default:
		c.release()
		return verdict{err: ErrBusy}
	}
	c.s = s
	go c.run()
	select {
	case v := <-c.done:
		c.release()
		return v
	case <-ctx.Done():
		if c.state.CompareAndSwap(running, abandoned) {
			return verdict{err: ctx.Err()} // the goroutine puts c back
		}
		v := <-c.done // answered meanwhile
		c.release()
		return v
	}
}

// A verdict is what Redis answered: a rate limit's (wait, ok), or a
// guard's count and failure, or the error.
type verdict struct {
	wait    time.Duration
	ok      bool
	err     error
	n       int
	failure limit.Failure
}

// A call is one command sent to Redis, pooled: the goroutine that sends
// it hands the verdict to done, unless the caller abandoned it at its
// deadline first; whichever of the two is last puts it back. It asks a
// limiter for the bucket name, or runs fn.
type call struct {
	s     *Store
	l     *limiter
	name  string
	fn    func() verdict
	done  chan verdict
	state atomic.Int32
}

const (
	running = iota
	answered
	abandoned
)

var calls = sync.Pool{New: func() any { return &call{done: make(chan verdict, 1)} }}

func (c *call) release() {
	c.s, c.l, c.name, c.fn = nil, nil, "", nil
	c.state.Store(running)
	calls.Put(c)
}

// run asks Redis and hands the verdict over, then frees the in-flight
// slot.
func (c *call) run() {
	var v verdict
	if c.fn != nil {
		v = c.fn()
	} else {
		v = c.l.ask(c.name)
	}
	<-c.s.inFlight
	if c.state.CompareAndSwap(running, answered) {
		c.done <- v // the caller owns c from here
		return
	}
	c.release() // abandoned: nobody waits
}

// ask sends the decision of the bucket name to Redis and returns the
// verdict. It waits for Redis's answer with no deadline of its own: the
// client gives a silent connection up after its write timeout, which
// frees the command's place in its queue; only then may the in-flight
// slot be freed.
func (l *limiter) ask(name string) verdict {
	ctx := context.Background()
	c := l.s.client
	resp := c.Do(ctx, c.B().Evalsha().Sha1(gcraSHA1).Numkeys(1).Key(name).Arg(l.interval, l.burst).Build())
	if e, ok := rueidis.IsRedisErr(resp.Error()); ok && e.IsNoScript() {
		resp = c.Do(ctx, c.B().Eval().Script(gcra).Numkeys(1).Key(name).Arg(l.interval, l.burst).Build())
	}
	if err := resp.Error(); err != nil {
		if e, ok := rueidis.IsRedisErr(err); ok && strings.HasPrefix(e.Error(), "WRONGTYPE") {
			return verdict{err: noVerdict{err}} // another program's value on this key
		}
		return verdict{err: err}
	}
	us, err := resp.AsInt64()
	switch {
	case err != nil || us < 0:
		return verdict{err: ErrAnswer}
	case us == 0:
		return verdict{ok: true}
	default:
		return verdict{wait: time.Duration(us) * time.Microsecond}
	}
}
