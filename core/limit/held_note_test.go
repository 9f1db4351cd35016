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
// refused (the wait grew past the cap), one it shed (no room left to
// hold it: core/limit sheds only then); a call refused at
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

	// Shed: the one place to hold a call is taken.
	full := limit.NewHolds(time.Second, 1, 1)
	release, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		_, _, _ = limit.Absorb(context.Background(), full, limit.HoldCall{Modern: true}, short,
			func(context.Context, time.Duration) (struct{}, time.Duration, error) {
				<-release
				return struct{}{}, 0, nil
			})
	}()
	for full.HeldNow() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, note := calllog.Noting(context.Background())
	_, a, _ := limit.Absorb(ctx, full, limit.HoldCall{Modern: true, CanShed: true}, short, admitAfter(0))
	got, held := note.Admission()
	assert.Equal(t, limit.Shed, a)
	assert.Equal(t, "shed", got)
	assert.Zero(t, held)
	close(release)
	<-done
}
