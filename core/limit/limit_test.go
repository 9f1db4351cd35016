package limit_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
)

// render is what a front does with a limit's error: one envelope.
func render(err error) *envelope.Envelope {
	return envelope.NewRenderer().Error(context.Background(), envelope.Call{Tool: "shop_search"}, err)
}

func TestRateRefusesWithRetryAfter(t *testing.T) {
	t.Parallel()
	b := limit.NewRate(rate.Every(time.Hour), 1, 256) // room for 16 keys in each of its 16 shards
	now := time.Now()
	require.NoError(t, b.Allow("", "alice", now))
	require.NoError(t, b.Allow("", "bob", now), "another key, another bucket")
	require.NoError(t, b.Allow("shop_report", "alice", now), "another tool, another bucket")
	env := render(b.Allow("", "alice", now))
	assert.Equal(t, envelope.ExecutionFailed, env.ErrorType)
	assert.True(t, env.Retryable)
	assert.InDelta(t, time.Hour.Milliseconds(), env.RetryAfterMS, 1000)
	assert.Contains(t, env.Message, "Rate limit reached: this server accepts 0.000278 calls per second")
	assert.Contains(t, env.NextSteps[0], "Wait 3600000 ms")
}

func TestInvalidConfigurationPanics(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() { limit.NewRate(0, 1, 1) })
	assert.Panics(t, func() { limit.NewRate(rate.Inf, 1, 1) })
	assert.Panics(t, func() { limit.NewRate(1, 0, 1) })
	assert.Panics(t, func() { limit.NewRate(1, 1, 0) })
	assert.Panics(t, func() { limit.NewSlots(0, false, 0) })
	assert.Panics(t, func() { limit.NewSlots(1, false, -1) })
}

func TestSlotsRefuseBeyondN(t *testing.T) {
	t.Parallel()
	s := limit.NewSlots(1, false, 0)
	ctx := context.Background()
	slot, err := s.Acquire(ctx, "shop_search")
	require.NoError(t, err)
	_, err = s.Acquire(ctx, "shop_report")
	env := render(err)
	assert.Equal(t, envelope.ExecutionFailed, env.ErrorType)
	assert.EqualValues(t, 100, env.RetryAfterMS, "at least 100 ms")
	assert.Contains(t, env.Message, "at most 1 at a time")
	slot.Release(nil)
	_, err = s.Acquire(ctx, "shop_report")
	assert.NoError(t, err)

	perTool := limit.NewSlots(1, true, 0)
	_, err = perTool.Acquire(ctx, "shop_search")
	require.NoError(t, err)
	_, err = perTool.Acquire(ctx, "shop_report")
	assert.NoError(t, err, "n for each tool")
}

func TestSlotsAnswerACallerThatGaveUp(t *testing.T) {
	t.Parallel()
	s := limit.NewSlots(1, false, time.Hour)
	_, err := s.Acquire(context.Background(), "")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = s.Acquire(ctx, "")
	assert.ErrorIs(t, err, context.Canceled)
}

// TestSlotOfAStragglerIsFreedWhenItReturns: a slot released with an answer
// that Detach recorded stays taken until Finish, whichever comes first.
func TestSlotOfAStragglerIsFreedWhenItReturns(t *testing.T) {
	t.Parallel()
	s := limit.NewSlots(1, false, 0)
	ctx := context.Background()

	slot, err := s.Acquire(ctx, "")
	require.NoError(t, err)
	answer := new(int)
	late := limit.Detach(answer)
	slot.Release(answer)
	_, err = s.Acquire(ctx, "")
	require.Error(t, err, "the handler still runs: its slot is taken")
	late.Finish()
	slot, err = s.Acquire(ctx, "")
	require.NoError(t, err, "the handler returned: its slot is free")

	// Finished before the slot is released: released at once.
	answer = new(int)
	limit.Detach(answer).Finish()
	slot.Release(answer)
	_, err = s.Acquire(ctx, "")
	assert.NoError(t, err)
}

func TestWithinReturnsWhatCameInTime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	answer := func(err error) *string { s := err.Error(); return &s }
	res, err := limit.Within(ctx, "shop_search", time.Hour, nil, func(context.Context) (*string, error) {
		s := "ok"
		return &s, nil
	}, answer)
	require.NoError(t, err)
	assert.Equal(t, "ok", *res)

	boom := errors.New("boom")
	_, err = limit.Within(ctx, "shop_search", time.Hour, nil, func(context.Context) (*string, error) { return nil, boom }, answer)
	assert.Equal(t, boom, err)

	// The handler gave up on this deadline: the timeout answer.
	res, err = limit.Within(ctx, "shop_search", time.Millisecond, nil, func(ctx context.Context) (*string, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}, answer)
	require.NoError(t, err)
	assert.Equal(t, "shop_search did not finish within 1ms: context deadline exceeded", *res)
}

// TestWithinReleasesTheCallerOfAHandlerThatIgnoresItsContext, and leaves
// no goroutine behind once the handler returns. It is not parallel: the
// goroutines it counts are its own.
func TestWithinReleasesTheCallerOfAHandlerThatIgnoresItsContext(t *testing.T) {
	release := make(chan struct{})
	var returned atomic.Bool
	var answered error
	res, err := limit.Within(context.Background(), "shop_search", 5*time.Millisecond, nil,
		func(context.Context) (*string, error) {
			<-release
			returned.Store(true)
			return nil, nil
		},
		func(err error) *string { answered = err; s := "timed out"; return &s })
	require.NoError(t, err)
	assert.Equal(t, "timed out", *res)
	assert.False(t, returned.Load())
	env := render(answered)
	assert.Equal(t, envelope.ExecutionFailed, env.ErrorType)
	assert.True(t, env.Retryable)
	assert.Contains(t, env.NextSteps[0], "Make the call cheaper")
	// Counted by what they run, not by runtime.NumGoroutine, which other
	// tests' workers and drains move as they exit.
	const handler, drain = "TestWithinReleasesTheCallerOfAHandlerThatIgnoresItsContext.func1", "core/limit.drain["
	assert.Equal(t, 1, goroutinesRunning(handler), "the handler runs on")
	// A goroutine not yet scheduled shows as Within's gowrap, not drain:
	// on one CPU it has not run when Within returns.
	assert.Eventually(t, func() bool { return goroutinesRunning(drain) > 0 }, 5*time.Second, time.Millisecond, "something waits for the handler")
	close(release)
	for i := 0; goroutinesRunning(handler)+goroutinesRunning(drain) > 0 && i < 1000; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	assert.Zero(t, goroutinesRunning(handler), "the handler left behind")
	assert.Zero(t, goroutinesRunning(drain), "its waiter left behind")
}

// goroutinesRunning counts the goroutines whose stack names fn.
func goroutinesRunning(fn string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, fn) {
			count++
		}
	}
	return count
}

func TestWithinRaisesAPanicInTheCallersGoroutine(t *testing.T) {
	t.Parallel()
	defer func() {
		p, ok := recover().(*limit.HandlerPanic)
		require.True(t, ok)
		assert.Equal(t, "boom", p.Value)
		assert.Contains(t, p.String(), "handler goroutine")
	}()
	_, _ = limit.Within(context.Background(), "shop_search", time.Hour, nil,
		func(context.Context) (*string, error) { panic("boom") },
		func(error) *string { return nil })
	t.Fatal("no panic")
}

func TestWithinAnswersACallerThatGaveUp(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	release := make(chan struct{})
	defer close(release)
	var answered error
	_, _ = limit.Within(ctx, "shop_search", time.Hour, nil,
		func(context.Context) (*string, error) { <-release; return nil, nil },
		func(err error) *string { answered = err; return new(string) })
	assert.ErrorIs(t, answered, context.Canceled)
}

func TestKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	assert.Empty(t, limit.Key(ctx), "no principal, no address: the global bucket")
	actx := limit.ContextWithRemoteAddr(ctx, "[2001:db8:1:2::7]:51234")
	assert.Equal(t, "2001:db8:1:2::/64", limit.RemoteAddrFromContext(actx))
	assert.Equal(t, limit.Key(actx), limit.Key(limit.ContextWithRemoteAddr(ctx, "[2001:db8:1:2::8]:1")), "one /64, one caller")
	pctx := limit.ContextWithPrincipal(actx, "alice")
	assert.Equal(t, "alice", limit.PrincipalFromContext(pctx))
	assert.NotEqual(t, limit.Key(actx), limit.Key(pctx), "the principal wins")
	assert.NotEqual(t, limit.Key(limit.ContextWithRemoteAddr(ctx, "alice")), limit.Key(pctx), "an address is not a principal")
}

// TestPrincipalKey: a principal a front reads from its SDK's request keys
// the bucket a context naming the same principal does, and never an
// address's.
func TestPrincipalKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	assert.Equal(t, limit.Key(limit.ContextWithPrincipal(ctx, "alice")), limit.PrincipalKey("alice"))
	assert.NotEqual(t, limit.Key(limit.ContextWithRemoteAddr(ctx, "alice")), limit.PrincipalKey("alice"))
	assert.Empty(t, limit.PrincipalKey(""), "no principal: the next key")
}

// TestAllowedCallsDoNotAllocate: a call with a key of at most 64 bytes
// that its bucket allows, and a slot free at once, cost no allocation.
func TestAllowedCallsDoNotAllocate(t *testing.T) {
	b := limit.NewRate(1e12, 1<<30, limit.DefaultMaxKeys)
	now := time.Now()
	_ = b.Allow("shop_search", "alice", now)
	if n := testing.AllocsPerRun(1000, func() { _ = b.Allow("shop_search", "alice", now) }); n != 0 {
		t.Errorf("Rate.Allow: %.0f allocations, want 0", n)
	}
	s := limit.NewSlots(4, false, 0)
	ctx := context.Background()
	answer := new(int)
	if n := testing.AllocsPerRun(1000, func() {
		slot, _ := s.Acquire(ctx, "shop_search")
		slot.Release(answer)
	}); n != 0 {
		t.Errorf("Slots: %.0f allocations, want 0", n)
	}
}

// goroutineID is the ID of the calling goroutine, from its stack header.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := strings.Cut(strings.TrimPrefix(string(buf), "goroutine "), " ")
	return id
}

// Timed calls one after another run on one worker goroutine, whose stack
// stays grown, rather than on a new goroutine each; the worker is gone
// once no call came for a while (TestWithinReleasesTheCallerOfAHandlerThatIgnoresItsContext).
// A worker delivers its call's answer before it waits for the next call,
// so a call made at once after another may still find it busy and start
// a worker of its own: the test pauses between calls, and asserts that
// the calls share workers rather than that every one found the first.
func TestTimedCallsReuseAWorker(t *testing.T) {
	const calls = 10
	seen := map[string]int{}
	caller := goroutineID()
	for range calls {
		_, err := limit.Within(context.Background(), "shop_search", time.Minute, nil,
			func(context.Context) (*string, error) { id := goroutineID(); seen[id]++; return &id, nil },
			func(error) *string { return nil })
		require.NoError(t, err)
		time.Sleep(time.Millisecond) // the worker waits for the next call again
	}
	assert.NotContains(t, seen, caller, "a call runs on a goroutine of its own")
	assert.Less(t, len(seen), calls/2, "timed calls share workers: %v", seen)
}

// A refusal for want of a slot says how long the call waited, or that it
// does not wait: never "none finished within 0s".
func TestSlotsRefusalSaysWhatTheWaitWas(t *testing.T) {
	t.Parallel()
	for wait, want := range map[time.Duration]string{
		0:                     "Too many calls at once: this server runs at most 1 at a time, and all were busy: it does not wait for one to finish.",
		time.Millisecond:      "Too many calls at once: this server runs at most 1 at a time, and none finished within 1ms.",
		20 * time.Millisecond: "Too many calls at once: this server runs at most 1 at a time, and none finished within 20ms.",
	} {
		s := limit.NewSlots(1, false, wait)
		slot, err := s.Acquire(context.Background(), "t")
		require.NoError(t, err)
		err = func() error { _, err := s.Acquire(context.Background(), "t"); return err }()
		slot.Release(nil)
		assert.Equal(t, want, envelope.NewRenderer().Error(context.Background(), envelope.Call{Tool: "t"}, err).Message)
	}
}
