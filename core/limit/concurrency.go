package limit

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultMaxWait is how long a call may wait for a [Slots] slot before it
// is refused.
const DefaultMaxWait = time.Second

// minRetryAfter is the shortest delay a refusal for want of a slot
// suggests: asking an agent to come back at once after a refusal only
// invites another refusal.
const minRetryAfter = 100 * time.Millisecond

// Slots bounds how many handlers run at once: n in all, or n per tool.
// n bounds handlers running, not callers waiting for an answer: a call
// that a timeout answered while its handler runs on keeps its slot until
// that handler returns (see [Detach]). It is safe for concurrent use.
type Slots struct {
	n       int
	perTool bool
	maxWait time.Duration
	shared  chan struct{}
	tools   sync.Map // tool name -> chan struct{}; bounded by the server's tools
	why     string
	retry   time.Duration
}

// NewSlots returns n slots, shared by every tool or, with perTool, n for
// each tool; a call waits up to maxWait for one. With perTool, every
// distinct tool name gets slots that are kept for good: pass only names of
// tools the server has, never a name from a request it has not matched to
// a tool. It panics unless n >= 1 and maxWait >= 0.
func NewSlots(n int, perTool bool, maxWait time.Duration) *Slots {
	if n < 1 || maxWait < 0 {
		panic(fmt.Sprintf("limit: NewSlots(%d, %v, %s): need at least 1 slot and a wait of at least 0", n, perTool, maxWait))
	}
	return &Slots{
		n: n, perTool: perTool, maxWait: maxWait,
		shared: make(chan struct{}, n),
		why:    slotsWhy(n, maxWait),
		retry:  max(maxWait, minRetryAfter),
	}
}

// slotsWhy is the message of a refusal for want of one of n slots after
// waiting wait for one.
func slotsWhy(n int, wait time.Duration) string {
	if wait <= 0 {
		return fmt.Sprintf("Too many calls at once: this server runs at most %d at a time, and all were busy: it does not wait for one to finish.", n)
	}
	return fmt.Sprintf("Too many calls at once: this server runs at most %d at a time, and none finished within %s.", n, wait)
}

// Slot is a slot taken by [Slots.Acquire]; give it back with
// [Slot.Release].
type Slot struct{ c chan struct{} }

// Acquire takes a slot for a call of tool, waiting up to the bound. It
// returns the refusal to answer the call with ([Refusal], retry_after_ms
// the wait bound, at least 100 ms) when none came free in time, or
// ctx.Err() when the caller gave up first. A slot free at once costs a
// channel operation and no allocation.
func (s *Slots) Acquire(ctx context.Context, tool string) (Slot, error) {
	return s.AcquireWithin(ctx, tool, s.maxWait)
}

// AcquireWithin is Acquire, waiting up to wait for a slot rather than
// the bound: what a consumer that holds a refused call (see [Absorb])
// asks again.
func (s *Slots) AcquireWithin(ctx context.Context, tool string, wait time.Duration) (Slot, error) {
	c := s.shared
	if s.perTool {
		v, ok := s.tools.Load(tool)
		if !ok {
			v, _ = s.tools.LoadOrStore(tool, make(chan struct{}, s.n))
		}
		c = v.(chan struct{})
	}
	if acquire(ctx, c, wait) {
		return Slot{c}, nil
	}
	if err := ctx.Err(); err != nil {
		return Slot{}, err
	}
	return Slot{}, Refusal(s.why, s.retry)
}

func acquire(ctx context.Context, slots chan struct{}, wait time.Duration) bool {
	select {
	case slots <- struct{}{}:
		return true
	default:
	}
	if wait <= 0 {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// Release gives the slot back once the call it was taken for has been
// answered with answer (a pointer, such as the SDK's result): at once, or,
// when answer is what a timeout answered while the handler runs on
// ([Detach]), when that handler returns. A nil answer (the handler
// panicked, or returned no result) frees the slot at once.
func (s Slot) Release(answer any) {
	if answer != nil && stragglers.n.Load() > 0 {
		if v, ok := stragglers.m.Load(answer); ok && v.(*Straggler).hold(s.c) {
			return
		}
	}
	<-s.c
}
