package limit_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/core/calllog"
	"github.com/mcpguard/mcpguard/core/limit"
)

// TestAbsorbNotesWhatBecameOfAHeldCall: Absorb notes, on the call's
// calllog.Note, a call it held and then ran, one it held and then
// refused (the wait grew past the cap), one it shed (its deadline came
// before its wait); a call refused at
// once (an older client) is noted nothing, and without a Note in the
// context nothing fails.
func TestAbsorbNotesWhatBecameOfAHeldCall(t *testing.T) {
	h := limit.NewHolds(time.Second, 4, 8)
	short, long := limit.Refusal("busy", 5*time.Millisecond), limit.Refusal("busy", time.Hour)
	admitAfter := func(n int) func(context.Context, time.Duration) (struct{}, time.Duration, error) {
		return func(context.Context, time.Duration) (struct{}, time.Duration, error) {
			if n--; n >= 0 {
				return struct{}{}, 0, short
			}
			return struct{}{}, 0, nil
		}
	}
	worse := func(context.Context, time.Duration) (struct{}, time.Duration, error) { return struct{}{}, 0, long }
	for _, c := range []struct {
		name      string
		call      limit.HoldCall
		refusal   error
		try       func(context.Context, time.Duration) (struct{}, time.Duration, error)
		admission string
		held      bool
	}{
		{"held, then ran", limit.HoldCall{Modern: true}, short, admitAfter(2), "held", true},
		{"held, then refused", limit.HoldCall{Modern: true}, short, worse, "refused", true},
		{"shed at once", limit.HoldCall{Modern: true, CanShed: true}, limit.Refusal("busy", 500*time.Millisecond), worse, "shed", false},
		{"older client", limit.HoldCall{}, short, admitAfter(0), "", false},
	} {
		ctx, note := calllog.Noting(context.Background())
		ctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond) // a deadline before a wait of 500 ms: shed
		_, a, _ := limit.Absorb(ctx, h, c.call, c.refusal, c.try)
		got, held := note.Admission()
		assert.Equal(t, c.admission, got, "%s (%s)", c.name, a)
		assert.Equal(t, c.held, held > 0, "%s: held %s", c.name, held)
		cancel()
		_, _, _ = limit.Absorb(context.Background(), h, c.call, c.refusal, c.try) // no Note: nothing to note on
	}
}
