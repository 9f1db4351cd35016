package limit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/core/calllog"
	"github.com/mcpguard/mcpguard/core/envelope"
)

// DefaultHoldCap is how long, by default, a rate or concurrency limit
// holds a call of a client that negotiated multi round-trip requests (MCP
// 2026-07-28) before it answers the call's refusal: a wait a model would
// otherwise spend a turn on (read the refusal, wait, call again) is spent
// by the server instead, and the model sees the result. Three seconds
// absorbs a burst at twice the rate for a few seconds, and is well inside
// the timeouts of MCP clients (mcp-go and go-sdk set none by default;
// hosts allow tens of seconds).
const DefaultHoldCap = 3 * time.Second

// HoldPerCaller bounds the calls one caller (the key of [Key], or of
// [WithKey]) may have held by one layer at once, and HoldMax those of all
// callers together: a held call keeps its goroutine and a timer (about
// 10 KB), so a flood holds at most HoldMax of them per layer; the calls
// beyond are answered at once, as without holding. One caller's bound is
// what a layer of 50 calls a second can admit within [DefaultHoldCap],
// so that one agent's parallel burst is absorbed whole.
const (
	HoldPerCaller = 128
	HoldMax       = 1024
)

// ShedRounds is how many load-shedding answers one call gets at most:
// both Go SDK clients re-send such an answer's call at once, by
// themselves, and give up at the third (mcp-go v1.2.1
// client/mrtr.go maxLoadSheddingRoundTrips, go-sdk v1.8.0 mcp/mrtr.go
// maxLoadSheddingMultiRoundTripRetries, both 3). A call past it gets its
// refusal.
const ShedRounds = 2

// Admission is what a limit made of a call.
type Admission uint8

// The admissions.
const (
	// Admitted at once: the call runs.
	Admitted Admission = iota
	// Held until the limit admitted it: the call runs, later.
	Held
	// Refused: the call is answered with the error, as without holding.
	Refused
	// Shed: the call is answered with a load-shedding input_required (no
	// input requests, a sealed requestState), which the client's SDK
	// re-sends by itself.
	Shed
)

var admissionNames = [...]string{Admitted: "admitted", Held: "held", Refused: "refused", Shed: "shed"}

// String returns "admitted", "held", "refused" or "shed".
func (a Admission) String() string {
	if int(a) < len(admissionNames) {
		return admissionNames[a]
	}
	return "unknown"
}

// HoldCall is a call a limit refused, as [Holds] reads it.
type HoldCall struct {
	// Caller is who the call is from, as the limit keys it ("" is every
	// caller that has no key).
	Caller string
	// Modern: the client negotiated MCP 2026-07-28 or later, whose
	// clients act on multi round-trip results. Only such a call is held
	// or shed; any other gets its refusal, as before.
	Modern bool
	// CanShed: the consumer answers a shed call with a load-shedding
	// result the client's SDK acts on (see [Shed]).
	CanShed bool
	// Rounds is how many load-shedding answers the call already had, as
	// its sealed requestState says.
	Rounds int
}

// Holds holds the calls a limit refused, until the limit admits them,
// within a cap and the call's deadline, and bounded per caller and in
// all (see [Absorb]). A nil Holds holds nothing. It is safe for
// concurrent use.
type Holds struct {
	cap            time.Duration
	perCaller, max int
	mu             sync.Mutex
	n              int
	callers        map[string]int
}

// NewHolds returns the holds of a layer: each call held at most cap, at
// most perCaller per caller and max in all. It returns nil for cap 0 (no
// holding) and panics on a negative cap, or unless 1 <= perCaller <= max.
func NewHolds(cap time.Duration, perCaller, max int) *Holds {
	if cap < 0 || perCaller < 1 || max < perCaller {
		panic(fmt.Sprintf("limit: NewHolds(%s, %d, %d): need a cap of at least 0 and 1 <= per caller <= max", cap, perCaller, max))
	}
	if cap == 0 {
		return nil
	}
	return &Holds{cap: cap, perCaller: perCaller, max: max, callers: map[string]int{}}
}

// Cap is how long h holds a call at most, 0 for a nil h.
func (h *Holds) Cap() time.Duration {
	if h == nil {
		return 0
	}
	return h.cap
}

// HeldNow is how many calls h holds now.
func (h *Holds) HeldNow() int {
	if h == nil {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

func (h *Holds) enter(caller string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n >= h.max || h.callers[caller] >= h.perCaller {
		return false
	}
	h.n++
	h.callers[caller]++
	return true
}

func (h *Holds) leave(caller string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.n--
	if h.callers[caller] <= 1 {
		delete(h.callers, caller) // the map holds the callers held now, no more
	} else {
		h.callers[caller]--
	}
}

// Absorb decides a call c that a limit refused with refusal (its
// retry_after_ms the wait): it holds the call, without a busy loop, and
// asks try again, until try admits it, and returns [Held] with what try
// returned; or it returns [Shed], or [Refused] with the error to answer.
//
// try(ctx, within) admits the call now or promises it within that wait:
// it returns what the call runs with and how long to wait before it runs
// (a token reserved ahead), or a refusal whose retry_after_ms says how
// long until it may admit the call. A try that takes the limit's token
// or slot each time it admits keeps the call within the limit, whatever
// the store: the call runs only once try admitted it.
//
// A call is held only if c is Modern, h is not nil, the wait is within
// h's cap and ctx's deadline, and the caller and all callers have room
// (see [HoldPerCaller]); it is held no longer than the cap or the
// deadline. A call whose wait fits but that found no room to be held is
// shed when c.CanShed and it had fewer than [ShedRounds] load-shedding
// answers; any other gets refusal unchanged (or the last refusal, after
// a hold), or ctx's error when the client went away while it was held.
//
// Only a call that found no room is shed, because both Go SDK clients
// re-send a shed call at once: a wait past the deadline or left after a
// hold to the cap would be as long for the re-send, which would only
// cost the client two more round trips before the same refusal. A full
// hold bound, instead, is memory the server will not spend: the re-send
// costs the server nothing while it travels, and finds room if a held
// call left meanwhile (held calls leave at the rate: one every 20 ms at
// 50 a second, so over a network round trip of tens of milliseconds the
// re-send is often held). The re-send is held or refused by the same
// limit, so shedding never lets a call run sooner.
func Absorb[T any](ctx context.Context, h *Holds, c HoldCall, refusal error, try func(ctx context.Context, within time.Duration) (T, time.Duration, error)) (_ T, a Admission, _ error) {
	var zero T
	wait := envelope.RetryAfterOf(refusal)
	if h == nil || !c.Modern || wait <= 0 || wait > h.cap {
		return zero, Refused, refusal // a long wait, an older client: today's answer
	}
	var since time.Time // when the hold began; zero: not held
	defer func() { note(ctx, a, since) }()
	until := time.Now().Add(h.cap)
	if d, ok := ctx.Deadline(); ok && d.Before(until) {
		until = d
	}
	if time.Until(until) < wait {
		return zero, Refused, refusal // a re-send would meet the same deadline
	}
	if !h.enter(c.Caller) {
		return zero, decline(c), refusal
	}
	defer h.leave(c.Caller)
	since = time.Now()
	for {
		v, delay, err := try(ctx, time.Until(until))
		if err == nil {
			if !sleep(ctx, delay) {
				return zero, Refused, ctx.Err()
			}
			return v, Held, nil
		}
		wait = envelope.RetryAfterOf(err)
		if wait <= 0 {
			return zero, Refused, err // not a refusal: the client went away
		}
		refusal = err
		if time.Until(until) < wait {
			return zero, Refused, refusal // held to the cap: what is past it is a long wait
		}
		if !sleep(ctx, wait) {
			return zero, Refused, ctx.Err()
		}
	}
}

// note notes, for the call's log record and span (calllog.Note), what
// became of a call that was held since then, or shed: a call refused
// without a hold is noted nothing, its refusal says it all.
func note(ctx context.Context, a Admission, since time.Time) {
	if since.IsZero() && a != Shed {
		return
	}
	var held time.Duration
	if !since.IsZero() {
		held = time.Since(since)
	}
	calllog.NoteFrom(ctx).Admit(a.String(), held)
}

// decline is what becomes of a call that found no room to be held:
// shed, when the consumer can and the client's SDK still re-sends, else
// refused.
func decline(c HoldCall) Admission {
	if c.CanShed && c.Rounds < ShedRounds {
		return Shed
	}
	return Refused
}

// sleep waits d, or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
