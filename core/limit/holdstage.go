package limit

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/time/rate"
)

// WithHoldCap sets how long a Rate or Concurrency layer may hold a call
// of a client that negotiated multi round-trip requests (MCP 2026-07-28)
// until the limit admits it, instead of answering its refusal at once
// (see [Absorb]); the default is [DefaultHoldCap], zero turns holding
// (and load shedding) off. It panics on a negative duration.
func WithHoldCap[R any](d time.Duration) Option[R] {
	if d < 0 {
		panic(fmt.Sprintf("limit: WithHoldCap(%s): negative duration", d))
	}
	return func(o *Options[R]) { o.holdCap, o.holdSet = d, true }
}

// HoldCap is the cap of [WithHoldCap], else [DefaultHoldCap].
func (o *Options[R]) HoldCap() time.Duration {
	if o.holdSet {
		return o.holdCap
	}
	return DefaultHoldCap
}

// holds returns the holds of one layer, nil when holding is off.
func (o *Options[R]) holds() *Holds { return NewHolds(o.HoldCap(), HoldPerCaller, HoldMax) }

// RateStage is a Rate layer as one stage: [RateStage.Admit] takes a
// token, or holds the call until there is one, or says to shed or refuse
// it. A front reads, with read, only what a refused call needs: whether
// its client acts on multi round-trip results, whether the front can shed
// it, and how many load-shedding rounds it had.
type RateStage[R any] struct {
	allow   func(ctx context.Context, bucket, key, tool string) error
	reserve func(ctx context.Context, bucket, key, tool string, within time.Duration) (time.Duration, error)
	key     func(context.Context, R) string
	perTool bool
	holds   *Holds
	read    func(context.Context, R) HoldCall
}

// RateStage returns the stage of a Rate layer of r calls per second in
// bursts of burst, as [Options.Rate] decides, holding calls up to
// [Options.HoldCap]; read tells a refused call's [HoldCall] (its Caller
// is the stage's key). It returns nil for r == rate.Inf, and panics as
// Rate does, or on a nil read.
func (o *Options[R]) RateStage(r rate.Limit, burst int, read func(context.Context, R) HoldCall) *RateStage[R] {
	if !(r > 0) || burst < 1 {
		panic(fmt.Sprintf("limit: Rate(%v, %d): need a positive rate and a burst of at least 1", float64(r), burst))
	}
	if read == nil {
		panic("limit: RateStage with a nil read function")
	}
	if r == rate.Inf {
		return nil
	}
	so := o.storeOpts
	so.Logger = o.logger
	allow, reserve := deciders(o.store, r, burst, o.maxKeys, so)
	return &RateStage[R]{allow: allow, reserve: reserve, key: o.key, perTool: o.perTool, holds: o.holds(), read: read}
}

// Admit decides a call of tool: [Admitted] or [Held] (run it), [Shed],
// or [Refused] with the error to answer it with. A call admitted at once
// costs what [Options.Rate]'s does, and does not read the call.
func (s *RateStage[R]) Admit(ctx context.Context, tool string, req R) (HoldCall, Admission, error) {
	key := s.key(ctx, req)
	bucket := ""
	if s.perTool {
		bucket = tool
	}
	refusal := s.allow(ctx, bucket, key, tool)
	if refusal == nil {
		return HoldCall{}, Admitted, nil
	}
	if s.holds == nil {
		return HoldCall{}, Refused, refusal
	}
	c := s.read(ctx, req)
	c.Caller = key
	_, a, err := Absorb(ctx, s.holds, c, refusal, func(ctx context.Context, within time.Duration) (struct{}, time.Duration, error) {
		d, err := s.reserve(ctx, bucket, key, tool, within)
		return struct{}{}, d, err
	})
	return c, a, err
}

// Holds is the stage's holds, nil when holding is off.
func (s *RateStage[R]) Holds() *Holds { return s.holds }

// SlotStage is a Concurrency layer as one stage: see [HoldSlot].
type SlotStage[R any] struct {
	slots *Slots
	key   func(context.Context, R) string
	holds *Holds
	read  func(context.Context, R) HoldCall
}

// SlotStage returns the stage of a Concurrency layer of n ([Options.Slots]),
// holding calls up to [Options.HoldCap] beyond [WithMaxWait]; read as for
// [Options.RateStage]. It panics as Slots does, or on a nil read.
func (o *Options[R]) SlotStage(n int, read func(context.Context, R) HoldCall) *SlotStage[R] {
	if read == nil {
		panic("limit: SlotStage with a nil read function")
	}
	return &SlotStage[R]{slots: o.Slots(n), key: o.key, holds: o.holds(), read: read}
}

// Holds is the stage's holds, nil when holding is off.
func (s *SlotStage[R]) Holds() *Holds { return s.holds }

// HoldSlot runs call in a slot of tool from st, as [Hold] does; a call
// that got no slot within the wait bound is held, for a client that acts
// on multi round-trip results, until a slot frees (within the hold cap,
// see [Absorb]), or answered with shed(the call as read) or refuse(err);
// a nil shed refuses.
func HoldSlot[R, T any](ctx context.Context, st *SlotStage[R], tool string, req R, call func() (T, error), refuse func(error) T, shed func(HoldCall) T) (T, error) {
	slot, err := st.slots.Acquire(ctx, tool)
	if err != nil {
		if st.holds == nil || ctx.Err() != nil {
			return refuse(err), nil
		}
		c := st.read(ctx, req)
		c.Caller = st.key(ctx, req)
		var a Admission
		slot, a, err = Absorb(ctx, st.holds, c, err, func(ctx context.Context, within time.Duration) (Slot, time.Duration, error) {
			s, err := st.slots.AcquireWithin(ctx, tool, within)
			return s, 0, err
		})
		switch {
		case a == Shed && shed != nil:
			return shed(c), nil
		case a == Shed || a == Refused:
			return refuse(err), nil
		}
	}
	return inSlot(slot, call)
}
