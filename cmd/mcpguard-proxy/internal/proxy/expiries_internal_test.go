package proxy

import (
	"strconv"
	"sync"
	"testing"
	"time"
)

// Deadlines fire once each, in the order they were set, on one timer; a
// key no longer in flight still fires (expire ignores it), and stop drops
// what is left.
func TestExpiriesFireInOrder(t *testing.T) {
	fired := make(chan string, 16)
	e := newExpiries(func(key string) { fired <- key }, func(string) bool { return true })
	for i := range 5 {
		e.add(strconv.Itoa(i), time.Millisecond)
	}
	for i := range 5 {
		select {
		case k := <-fired:
			if k != strconv.Itoa(i) {
				t.Fatalf("fired %s, want %d", k, i)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("deadline %d never fired", i)
		}
	}
	e.add("late", time.Hour)
	e.stop()
	e.add("after stop", time.Millisecond)
	e.expired() // as the timer would
	select {
	case k := <-fired:
		t.Fatalf("%s fired after stop", k)
	default:
	}
}

// The queue keeps the deadlines of calls answered since only up to a
// bound: past it, adding one drops those no longer in flight.
func TestExpiriesQueueIsBounded(t *testing.T) {
	var mu sync.Mutex
	live := map[string]bool{}
	e := newExpiries(func(string) {}, func(key string) bool { mu.Lock(); defer mu.Unlock(); return live[key] })
	defer e.stop()
	for i := range 10 * compactExpiries {
		key := strconv.Itoa(i)
		mu.Lock()
		live[key] = i%1000 == 0 // a few calls still in flight, the rest answered
		mu.Unlock()
		e.add(key, time.Hour)
	}
	e.mu.Lock()
	n := len(e.q)
	e.mu.Unlock()
	if n > compactExpiries {
		t.Fatalf("%d deadlines queued, want at most %d", n, compactExpiries)
	}
	for i := 0; i < 10*compactExpiries; i += 1000 {
		found := false
		e.mu.Lock()
		for _, x := range e.q {
			found = found || x.key == strconv.Itoa(i)
		}
		e.mu.Unlock()
		if !found {
			t.Fatalf("the deadline of %d, in flight, was dropped", i)
		}
	}
}

// A deadline set earlier than those queued (a call read before another's
// deadline was set, which sets it from when it was read) is queued in
// order, and fires first.
func TestExpiriesSetOutOfOrderFireInOrder(t *testing.T) {
	fired := make(chan string, 4)
	e := newExpiries(func(key string) { fired <- key }, func(string) bool { return true })
	defer e.stop()
	now := time.Now()
	e.addAt("second", now.Add(40*time.Millisecond))
	e.addAt("first", now.Add(20*time.Millisecond))
	for _, want := range []string{"first", "second"} {
		select {
		case k := <-fired:
			if k != want {
				t.Fatalf("fired %s, want %s", k, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s never fired", want)
		}
	}
}
