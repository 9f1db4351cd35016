package limit

import (
	"sync"
	"sync/atomic"
)

// stragglers records the answers a timeout gave while their handlers were
// still running, until those handlers return, so that [Slots] outside the
// timeout keep the slot of such a call until its handler has really
// returned: n is then a bound on running handlers, not on callers waiting
// for an answer.
//
// The answer itself is the token: it is the one value that travels from
// the timeout back out to the slots, and looking it up costs an allowed
// call one atomic load, with no allocation, while no handler is late.
var stragglers struct {
	n atomic.Int64 // entries in m; zero on the fast path
	m sync.Map     // answer -> *Straggler
}

// Straggler is a handler that outlived the answer to its call.
type Straggler struct {
	answer   any
	mu       sync.Mutex
	returned bool
	slots    []chan struct{} // slots to free when the handler returns
}

// Detach records that answer, a pointer the front hands back out as the
// call's result, answered a call whose handler is still running. Call
// [Straggler.Finish] once the handler has returned; until then, a
// [Slot] released with answer stays taken.
func Detach(answer any) *Straggler {
	s := &Straggler{answer: answer}
	stragglers.n.Add(1)
	stragglers.m.Store(answer, s)
	return s
}

// Finish says the handler has returned: it frees the slots held for it
// and forgets its answer.
func (s *Straggler) Finish() {
	s.mu.Lock()
	s.returned = true
	slots := s.slots
	s.slots = nil
	s.mu.Unlock()
	if _, ok := stragglers.m.LoadAndDelete(s.answer); ok {
		stragglers.n.Add(-1)
	}
	for _, c := range slots {
		<-c
	}
}

// hold keeps a slot of c taken until the handler returns, and reports
// false if it already has.
func (s *Straggler) hold(c chan struct{}) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.returned {
		return false
	}
	s.slots = append(s.slots, c)
	return true
}
