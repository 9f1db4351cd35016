package proxy

import (
	"slices"
	"sync"
	"time"
)

// expiries is the stdio proxy's one timer for the deadlines of the tool
// calls in flight. Every deadline is the same timeout after the moment it
// is set, so deadlines come in the order they are set: a queue holds them,
// and the timer waits for its head. Setting a deadline is an append.
//
// A timer per call, as before, cost a wake-up at each call: a timer that
// is earlier than every other interrupts the runtime's network poller (an
// eventfd written and read, and one more epoll wake-up), which was about a
// fifth of the system calls the proxy made per call beyond a relay's.
//
// An answered call's deadline stays queued until it passes (fire then
// finds nothing in flight under its key), or until the queue is compacted.
type expiries[K comparable] struct {
	mu      sync.Mutex
	q       []expiry[K] // by deadline
	timer   *time.Timer
	stopped bool
	fire    func(key K)      // a deadline passed
	live    func(key K) bool // whether key is still in flight
}

type expiry[K comparable] struct {
	at  time.Time
	key K
}

// compactExpiries is the queue's length past which the deadlines of calls
// no longer in flight are dropped: the queue holds at most about twice
// what is in flight (maxInFlight) plus the calls answered since the last
// compaction.
const compactExpiries = 2 * maxInFlight

func newExpiries[K comparable](fire func(key K), live func(key K) bool) *expiries[K] {
	e := &expiries[K]{fire: fire, live: live}
	e.timer = time.AfterFunc(time.Hour, e.expired)
	e.timer.Stop()
	return e
}

// add sets key's deadline, after in from now.
func (e *expiries[K]) add(key K, in time.Duration) { e.addAt(key, time.Now().Add(in)) }

// addAt sets key's deadline at at.
func (e *expiries[K]) addAt(key K, at time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return
	}
	if len(e.q) >= compactExpiries {
		e.q = slices.DeleteFunc(e.q, func(x expiry[K]) bool { return !e.live(x.key) })
	}
	i := len(e.q) // deadlines come in order, but for a few microseconds
	for i > 0 && e.q[i-1].at.After(at) {
		i--
	}
	if i == len(e.q) {
		e.q = append(e.q, expiry[K]{at: at, key: key})
	} else {
		e.q = slices.Insert(e.q, i, expiry[K]{at: at, key: key})
	}
	if i == 0 {
		e.timer.Reset(time.Until(at))
	}
}

// expired fires the deadlines that passed, and waits for the next.
func (e *expiries[K]) expired() {
	now := time.Now()
	e.mu.Lock()
	n := 0
	for n < len(e.q) && !e.q[n].at.After(now) {
		n++
	}
	due := make([]K, n)
	for i, x := range e.q[:n] {
		due[i] = x.key
	}
	e.q = slices.Delete(e.q, 0, n)
	if len(e.q) > 0 && !e.stopped {
		e.timer.Reset(e.q[0].at.Sub(now))
	}
	e.mu.Unlock()
	for _, key := range due {
		e.fire(key)
	}
}

// stop drops every deadline: the session ended.
func (e *expiries[K]) stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stopped = true
	e.q = nil
	e.timer.Stop()
}
