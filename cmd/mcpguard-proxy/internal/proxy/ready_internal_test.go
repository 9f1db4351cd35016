package proxy

import (
	"context"
	"testing"
)

// TestCurrentNeverTakesAChildMadeReadyMidReadForNone: a request that
// arrives while the child is (re)starting waits for it; a child made
// ready after current read that none was, and before it waits, is the
// child current returns, never nil (which answers the client "the server
// is restarting"). current once read the child and whether it was ready
// apart, and returned the nil child it had read.
func TestCurrentNeverTakesAChildMadeReadyMidReadForNone(t *testing.T) {
	s := &Stdio{ready: make(chan struct{})}
	want := &child{}
	currentUnlocked = func() {
		currentUnlocked = nil
		s.mu.Lock()
		s.child = want
		s.mu.Unlock()
		s.setReady(true)
	}
	t.Cleanup(func() { currentUnlocked = nil })
	if got := s.current(context.Background()); got != want {
		t.Fatalf("current returned %p, not the child made ready (%p)", got, want)
	}
}
