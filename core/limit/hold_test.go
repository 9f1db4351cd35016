package limit_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/limit"
)

// TestAbsorbBoundsHeldCalls: a flood of refused calls of one caller holds
// at most its bound at once, and every held call is released when its
// context ends; one of another caller still has room.
func TestAbsorbBoundsHeldCalls(t *testing.T) {
	h := limit.NewHolds(time.Minute, 4, 6)
	refusal := limit.Refusal("busy", time.Second)
	never := func(context.Context, time.Duration) (struct{}, time.Duration, error) { return struct{}{}, 0, refusal }
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	answers := make(chan limit.Admission, 20)
	hold := func(caller string) {
		defer wg.Done()
		_, a, _ := limit.Absorb(ctx, h, limit.HoldCall{Caller: caller, Modern: true, CanShed: true}, refusal, never)
		answers <- a
	}
	for range 10 {
		wg.Add(1)
		go hold("alice")
	}
	assert.Eventually(t, func() bool { return len(answers) == 6 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, 4, h.HeldNow())
	wg.Add(3)
	go hold("bob")
	go hold("bob")
	go hold("bob")
	assert.Eventually(t, func() bool { return len(answers) == 7 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, 6, h.HeldNow(), "all callers together hold at most the max")
	cancel()
	wg.Wait()
	close(answers)
	counts := map[limit.Admission]int{}
	for a := range answers {
		counts[a]++
	}
	assert.Equal(t, map[limit.Admission]int{limit.Shed: 7, limit.Refused: 6}, counts)
	assert.Zero(t, h.HeldNow())
}

// TestAbsorbAnswersOlderClientsAndLongWaitsAsBefore: no hold, no shed.
func TestAbsorbAnswersOlderClientsAndLongWaitsAsBefore(t *testing.T) {
	h := limit.NewHolds(time.Second, 4, 6)
	try := func(context.Context, time.Duration) (int, time.Duration, error) {
		t.Fatal("asked again")
		return 0, 0, nil
	}
	for name, c := range map[string]struct {
		call limit.HoldCall
		wait time.Duration
	}{
		"older client": {limit.HoldCall{CanShed: true}, time.Millisecond},
		"long wait":    {limit.HoldCall{Modern: true, CanShed: true}, 2 * time.Second},
		"past rounds":  {limit.HoldCall{Modern: true, CanShed: true, Rounds: limit.ShedRounds}, 2 * time.Second},
	} {
		refusal := limit.Refusal("busy", c.wait)
		_, a, err := limit.Absorb(context.Background(), h, c.call, refusal, try)
		assert.Equal(t, limit.Refused, a, name)
		assert.Same(t, refusal, err, name)
	}
}

// TestAbsorbShedsOnlyForWantOfRoom: a call whose wait is past its
// deadline, or past the cap after a hold, is refused, not shed: its
// client's SDK re-sends a shed call at once, and the re-send would meet
// the same wait. Only a full hold bound sheds.
func TestAbsorbShedsOnlyForWantOfRoom(t *testing.T) {
	h := limit.NewHolds(time.Second, 1, 1)
	c := limit.HoldCall{Modern: true, CanShed: true}
	refusal := limit.Refusal("busy", 50*time.Millisecond)
	never := func(context.Context, time.Duration) (struct{}, time.Duration, error) { return struct{}{}, 0, refusal }
	short, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, a, err := limit.Absorb(short, h, c, refusal, never)
	assert.Equal(t, limit.Refused, a, "a wait past the deadline")
	assert.Same(t, refusal, err)

	growing := func(_ context.Context, within time.Duration) (struct{}, time.Duration, error) {
		return struct{}{}, 0, limit.Refusal("busy", within+time.Millisecond)
	}
	_, a, _ = limit.Absorb(context.Background(), h, c, refusal, growing)
	assert.Equal(t, limit.Refused, a, "a wait past the cap after a hold")

	held := make(chan struct{})
	go func() {
		_, _, _ = limit.Absorb(context.Background(), h, c, refusal, func(context.Context, time.Duration) (struct{}, time.Duration, error) {
			close(held)
			time.Sleep(100 * time.Millisecond)
			return struct{}{}, 0, nil
		})
	}()
	<-held
	_, a, _ = limit.Absorb(context.Background(), h, c, refusal, never)
	assert.Equal(t, limit.Shed, a, "no room to hold it")
}

// TestAbsorbBoundaries: an error that is no refusal (no retry_after_ms)
// is answered as it is, never held, nor asked again after a hold; a call that found no room is shed
// while it had fewer than ShedRounds load-shedding answers, and refused
// from then on.
func TestAbsorbBoundaries(t *testing.T) {
	h := limit.NewHolds(time.Minute, 1, 1)
	modern := limit.HoldCall{Modern: true, CanShed: true}
	now := func(context.Context, time.Duration) (int, time.Duration, error) { return 7, 0, nil }
	plain := errors.New("store down")
	_, a, err := limit.Absorb(context.Background(), h, modern, plain, func(context.Context, time.Duration) (int, time.Duration, error) {
		t.Error("a call refused without a wait was held")
		return 0, 0, nil
	})
	assert.Equal(t, limit.Refused, a)
	assert.Same(t, plain, err)

	tries := 0
	_, a, err = limit.Absorb(context.Background(), limit.NewHolds(time.Second, 1, 1), modern, limit.Refusal("busy", time.Millisecond),
		func(context.Context, time.Duration) (int, time.Duration, error) { tries++; return 0, 0, plain })
	assert.Equal(t, limit.Refused, a, "held, then an error that is no refusal")
	assert.Same(t, plain, err)
	assert.Equal(t, 1, tries, "not asked again")

	release, entered := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(entered)
		_, _, _ = limit.Absorb(context.Background(), h, modern, limit.Refusal("busy", time.Millisecond),
			func(context.Context, time.Duration) (int, time.Duration, error) { <-release; return 0, 0, nil })
	}()
	require.Eventually(t, func() bool { return h.HeldNow() == 1 }, 5*time.Second, time.Millisecond)
	for rounds, want := range map[int]limit.Admission{0: limit.Shed, limit.ShedRounds - 1: limit.Shed, limit.ShedRounds: limit.Refused, limit.ShedRounds + 1: limit.Refused} {
		c := modern
		c.Rounds = rounds
		_, a, _ := limit.Absorb(context.Background(), h, c, limit.Refusal("busy", time.Millisecond), now)
		assert.Equal(t, want, a, "no room, %d rounds before", rounds)
	}
	close(release)
	<-entered
}

// TestHoldsCountEachCallerLeaving: a caller's held calls leave one by
// one, each making room for one more of that caller's, never two.
func TestHoldsCountEachCallerLeaving(t *testing.T) {
	h := limit.NewHolds(time.Minute, 2, 10)
	c := limit.HoldCall{Caller: "alice", Modern: true, CanShed: true}
	refusal := limit.Refusal("busy", time.Millisecond)
	var releases []chan struct{}
	var wg sync.WaitGroup
	hold := func() {
		r := make(chan struct{})
		releases = append(releases, r)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, _ = limit.Absorb(context.Background(), h, c, refusal, func(context.Context, time.Duration) (int, time.Duration, error) { <-r; return 0, 0, nil })
		}()
	}
	admission := func() limit.Admission {
		_, a, _ := limit.Absorb(context.Background(), h, c, refusal, func(context.Context, time.Duration) (int, time.Duration, error) { return 0, 0, nil })
		return a
	}
	hold()
	hold()
	require.Eventually(t, func() bool { return h.HeldNow() == 2 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, limit.Shed, admission(), "alice's bound is full")
	close(releases[0])
	require.Eventually(t, func() bool { return h.HeldNow() == 1 }, 5*time.Second, time.Millisecond)
	hold()
	require.Eventually(t, func() bool { return h.HeldNow() == 2 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, limit.Shed, admission(), "one left, one came: full again")
	close(releases[1])
	close(releases[2])
	wg.Wait()
	assert.Zero(t, h.HeldNow())
	assert.Equal(t, limit.Held, admission(), "all left: room again")
}
