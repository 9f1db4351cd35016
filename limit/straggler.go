package limit

import (
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
)

// stragglers records the answers [Timeout] gave while their handlers were
// still running, until those handlers return, so that a [Concurrency]
// layer outside Timeout can keep the slot of such a call until its
// handler has really returned: n is then a bound on running handlers, not
// on callers waiting for an answer.
//
// The answer itself is the token: it is the one value that travels from
// Timeout back out to Concurrency, and looking it up costs an allowed call
// one atomic load, with no allocation, while no handler is late.
var stragglers struct {
	n atomic.Int64 // entries in m; zero on the fast path
	m sync.Map     // *mcp.CallToolResult -> *straggler
}

// straggler is a handler that outlived the answer to its call.
type straggler struct {
	mu       sync.Mutex
	returned bool
	slots    []chan struct{} // slots to free when the handler returns
}

// detach records that res answered a call whose handler is still running.
// The caller must call finish once the handler has returned.
func detach(res *mcp.CallToolResult) *straggler {
	s := &straggler{}
	stragglers.n.Add(1)
	stragglers.m.Store(res, s)
	return s
}

// finish frees the slots held for the handler, which has now returned,
// and forgets its answer.
func (s *straggler) finish(res *mcp.CallToolResult) {
	s.mu.Lock()
	s.returned = true
	slots := s.slots
	s.slots = nil
	s.mu.Unlock()
	if _, ok := stragglers.m.LoadAndDelete(res); ok {
		stragglers.n.Add(-1)
	}
	for _, c := range slots {
		<-c
	}
}

// release frees the slot taken from slots for the call that res answered:
// at once if its handler has returned, else when it does.
func release(res *mcp.CallToolResult, slots chan struct{}) {
	if res != nil && stragglers.n.Load() > 0 {
		if v, ok := stragglers.m.Load(res); ok {
			s := v.(*straggler)
			s.mu.Lock()
			if !s.returned {
				s.slots = append(s.slots, slots)
				s.mu.Unlock()
				return
			}
			s.mu.Unlock()
		}
	}
	<-slots
}
