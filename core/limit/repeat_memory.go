package limit

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// repeatMemory is the guard's in-process [RepeatStore]: per caller, at
// most RepeatMaxPerCaller calls; all callers together, at most max. A
// caller full of calls evicts its own oldest; when the whole memory is
// full, the caller that failed least recently is forgotten whole. So a
// flood of failures from one caller can neither switch the guard off for
// others nor grow memory past the bound.
type repeatMemory struct {
	live    atomic.Int64 // calls remembered, for idle
	mu      sync.Mutex
	max     int
	now     func() time.Time
	callers map[string]*repeatCaller
	seq     uint64 // counts failures
	// oldest and newest end the list of callers, least recently failed
	// first.
	oldest, newest *repeatCaller
}

type repeatCaller struct {
	key, credential string
	calls           map[string]*repeatCall
	prev, next      *repeatCaller
}

type repeatCall struct {
	seq   uint64 // the order of last failures, for eviction
	n     int
	last  Failure
	at    int64 // UnixNano of the last failure
	until int64 // UnixNano: held back until then
}

var _ RepeatStore = (*repeatMemory)(nil)

func newRepeatMemory(max int, now func() time.Time) *repeatMemory {
	return &repeatMemory{max: max, now: now, callers: make(map[string]*repeatCaller)}
}

func (r *repeatMemory) idle() bool { return r.live.Load() == 0 }

// caller returns the caller's record, nil when there is none; a record
// kept under other credentials is forgotten first.
func (r *repeatMemory) caller(key, credential string) *repeatCaller {
	c := r.callers[key]
	if c != nil && c.credential != credential {
		r.forget(c)
		return nil
	}
	return c
}

// knows reports whether the memory holds anything of the caller key.
func (r *repeatMemory) knows(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.callers[key] != nil
}

// RepeatEntry implements [RepeatStore].
func (r *repeatMemory) RepeatEntry(_ context.Context, caller, credential, digest string, p RepeatPolicy) (RepeatEntry, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.caller(caller, credential)
	if c == nil {
		return RepeatEntry{}, false, nil
	}
	e, ok := c.calls[digest]
	if !ok {
		return RepeatEntry{}, true, nil
	}
	now := r.now().UnixNano()
	if now-e.at >= int64(p.Window) {
		r.drop(c, digest)
		if len(c.calls) == 0 {
			r.forget(c)
		}
		return RepeatEntry{}, true, nil
	}
	return RepeatEntry{N: e.n, Last: e.last, Wait: time.Duration(e.until - now)}, true, nil
}

// RepeatFail implements [RepeatStore].
func (r *repeatMemory) RepeatFail(_ context.Context, caller, credential, digest string, f Failure, p RepeatPolicy) (RepeatEntry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now().UnixNano()
	c := r.caller(caller, credential)
	if c == nil {
		c = &repeatCaller{key: caller, credential: credential, calls: make(map[string]*repeatCall)}
		r.callers[caller] = c
	} else {
		r.unlink(c)
	}
	r.link(c) // the newest to fail
	e, ok := c.calls[digest]
	if ok && now-e.at >= int64(p.Window) {
		e.n = 0
	}
	if !ok {
		r.makeRoom(c, now, p.Window)
		e = &repeatCall{}
		c.calls[digest] = e
		r.live.Add(1)
	}
	e.n++
	r.seq++
	e.last, e.at, e.seq = f, now, r.seq
	e.until = now + int64(p.hold(e.n))
	return RepeatEntry{N: e.n, Last: f, Wait: time.Duration(e.until - now)}, nil
}

// RepeatRelease implements [RepeatStore].
func (r *repeatMemory) RepeatRelease(_ context.Context, caller string) error {
	if r.idle() {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.callers[caller]; c != nil {
		r.forget(c)
	}
	return nil
}

// makeRoom makes room for one more call of c: its own expired and then
// oldest calls first when it holds its share, else whole callers that
// failed least recently when the memory is full, and c's oldest call when
// c holds all of it.
func (r *repeatMemory) makeRoom(c *repeatCaller, now int64, window time.Duration) {
	if len(c.calls) >= RepeatMaxPerCaller {
		r.dropOldest(c, now, window)
	}
	for int(r.live.Load()) >= r.max && r.oldest != nil && r.oldest != c {
		r.forget(r.oldest)
	}
	if int(r.live.Load()) >= r.max {
		r.dropOldest(c, now, window)
	}
}

// dropOldest drops c's expired calls, and its oldest if none was.
func (r *repeatMemory) dropOldest(c *repeatCaller, now int64, window time.Duration) {
	oldest, seq, expired := "", uint64(0), false
	for d, e := range c.calls {
		if now-e.at >= int64(window) {
			r.drop(c, d)
			expired = true
			continue
		}
		if oldest == "" || e.seq < seq {
			oldest, seq = d, e.seq
		}
	}
	if !expired && oldest != "" {
		r.drop(c, oldest)
	}
}

func (r *repeatMemory) drop(c *repeatCaller, digest string) {
	if _, ok := c.calls[digest]; ok {
		delete(c.calls, digest)
		r.live.Add(-1)
	}
}

func (r *repeatMemory) forget(c *repeatCaller) {
	r.live.Add(-int64(len(c.calls)))
	r.unlink(c)
	delete(r.callers, c.key)
}

func (r *repeatMemory) link(c *repeatCaller) {
	c.prev, c.next = r.newest, nil
	if r.newest != nil {
		r.newest.next = c
	} else {
		r.oldest = c
	}
	r.newest = c
}

func (r *repeatMemory) unlink(c *repeatCaller) {
	if c.prev != nil {
		c.prev.next = c.next
	} else if r.oldest == c {
		r.oldest = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	} else if r.newest == c {
		r.newest = c.prev
	}
	c.prev, c.next = nil, nil
}
