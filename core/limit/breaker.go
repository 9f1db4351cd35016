package limit

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// How often a store that is down is probed: probeFirst after the call
// that found it down, then twice as long after each failed probe, up to
// probeMax. A store back from an outage is used again within probeMax
// (plus a probe's deadline) of the first call after it is back.
const (
	probeFirst = 100 * time.Millisecond
	probeMax   = 2 * time.Second
)

// StoreLogEvery is how often, at most, a rate limit whose store is down
// logs how many calls it has decided without it (the record
// [StoreStillDownLogMessage]).
const StoreLogEvery = 10 * time.Second

// The messages of the records of a store's outage: [StoreLogMessage] when
// it starts, then these.
const (
	// StoreStillDownLogMessage is the message of the record a [Shared]
	// rate limit logs at most every [StoreLogEvery] while its store is
	// down, with how many calls it decided without it since the last
	// record (decided_without_store) and the store's last error.
	StoreStillDownLogMessage = "mcpguard: rate-limit store still unavailable"
	// StoreBackLogMessage is the message of the record a [Shared] rate
	// limit logs when its store answers again, with how long it was down
	// (duration) and how many calls were decided without it since the
	// last record (decided_without_store).
	StoreBackLogMessage = "mcpguard: rate-limit store available again"
)

// outageMessages are the messages of the records of a store's outage:
// when it starts, while it lasts, when it ends.
type outageMessages struct{ down, still, back string }

// A breaker keeps a store that failed from costing every call its
// deadline. While the store is up, a call asks it, and asking the
// breaker costs one atomic load. When a store call fails ([breaker.failed]),
// the store is down: callers decide without it at once ([breaker.up] is
// false, and they say so with [breaker.skip]), and a probe in the
// background, one at a time, asks it again probeFirst later, then twice
// as long after each failed probe, up to probeMax; the first probe it
// answers brings it up again. Probes are started by the calls that find
// the store down, so that none runs while no call comes and no goroutine
// outlives a probe: a breaker needs no Close.
//
// It logs an outage once when it starts (warning, with the store's
// error), at most every [StoreLogEvery] while it lasts, with how many
// calls were decided without the store, and once when the store is back.
// It is safe for concurrent use.
type breaker struct {
	probe   func(ctx context.Context) error // one store call: nil when the store answered
	timeout time.Duration                   // of a probe
	logger  *slog.Logger                    // nil: slog.Default() at the time
	msgs    outageMessages
	now     func() time.Time
	start   func(probe func()) // runs a probe in the background

	down    atomic.Bool
	probing atomic.Bool             // a probe is running: no other starts
	next    atomic.Int64            // UnixNano before which no probe starts
	skipped atomic.Int64            // calls decided without the store since the last record
	last    atomic.Pointer[failure] // the store's last error

	mu     sync.Mutex // the outage's clock: set when it starts, then by the one probe running
	since  time.Time  // when it started
	logged time.Time  // when it was last logged
	wait   time.Duration
}

// failure is the store's last error.
type failure struct{ err error }

// newBreaker returns the breaker of a store that probe asks, each probe
// bounded by timeout, logging to logger (nil: slog.Default() at the
// time) with msgs.
func newBreaker(msgs outageMessages, timeout time.Duration, logger *slog.Logger, probe func(ctx context.Context) error) *breaker {
	return &breaker{probe: probe, timeout: timeout, logger: logger, msgs: msgs, now: time.Now, start: func(f func()) { go f() }}
}

// up reports whether the store is to be asked.
func (b *breaker) up() bool { return !b.down.Load() }

// failed notes that a store call failed with err: the store is down from
// now, if it was not already, and the start of the outage is logged with
// attrs and err. A call that failed while the store was down already (it
// was asked before) is counted, as a skipped one is.
func (b *breaker) failed(ctx context.Context, err error, attrs ...slog.Attr) {
	if b.down.Load() {
		b.skipped.Add(1)
		return
	}
	b.mu.Lock()
	if b.down.Load() {
		b.mu.Unlock()
		b.skipped.Add(1)
		return
	}
	now := b.now()
	b.last.Store(&failure{err})
	b.since, b.logged, b.wait = now, now, probeFirst
	b.next.Store(now.Add(probeFirst).UnixNano())
	b.skipped.Store(1)
	b.down.Store(true)
	b.mu.Unlock()
	b.log(ctx, slog.LevelWarn, b.msgs.down, append(attrs, slog.String(logkey.Error, safe.Error(err)))...)
}

// skip notes a call decided without asking the store, which is down,
// starts a probe when one is due and none runs, and returns the store's
// last error.
func (b *breaker) skip() error {
	b.skipped.Add(1)
	if b.now().UnixNano() >= b.next.Load() && b.probing.CompareAndSwap(false, true) {
		b.start(b.run)
	}
	return b.last.Load().err
}

// run probes the store once: up again if it answered, else the next
// probe waits twice as long.
func (b *breaker) run() {
	defer b.probing.Store(false)
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	var err error
	if p := safe.Call(func() { err = b.probe(ctx) }); p != nil {
		err = fmt.Errorf("limit: the store panicked: %s", safe.Value(p))
	}
	cancel()
	if err == nil {
		b.back()
		return
	}
	now := b.now()
	b.mu.Lock()
	b.last.Store(&failure{err})
	b.wait = min(2*b.wait, probeMax)
	b.next.Store(now.Add(b.wait).UnixNano())
	due := now.Sub(b.logged) >= StoreLogEvery
	var n int64
	if due {
		b.logged, n = now, b.skipped.Swap(0)
	}
	since := b.since
	b.mu.Unlock()
	if due {
		b.log(context.Background(), slog.LevelWarn, b.msgs.still,
			slog.Int64(logkey.DecidedWithoutStore, n), slog.Duration(logkey.Duration, now.Sub(since)), slog.String(logkey.Error, safe.Error(err)))
	}
}

// back logs that the store is back, then brings it up again: the record
// comes before any record of a later outage.
func (b *breaker) back() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.log(context.Background(), slog.LevelInfo, b.msgs.back,
		slog.Duration(logkey.Duration, b.now().Sub(b.since)), slog.Int64(logkey.DecidedWithoutStore, b.skipped.Swap(0)))
	b.down.Store(false)
}

func (b *breaker) log(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	logger := b.logger
	if logger == nil {
		logger = slog.Default()
	}
	safe.Log(ctx, logger, level, msg, attrs...)
}
