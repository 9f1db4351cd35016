package limit_test

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
)

// clock is a settable clock for the guard.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func fail(code envelope.Code, msg string, steps ...string) *envelope.Envelope {
	return &envelope.Envelope{ErrorType: code, Message: msg, NextSteps: steps}
}

func call(caller, tool, args string) limit.RepeatCall {
	return limit.RepeatCall{Caller: limit.Caller{Key: caller}, Tool: tool, Args: []byte(args)}
}

// run admits c and, if it runs, settles it with failure.
func run(t *testing.T, g *limit.Repeats, c limit.RepeatCall, failure *envelope.Envelope) error {
	t.Helper()
	tk, err := g.Admit(context.Background(), c)
	if err == nil {
		tk.Settle(context.Background(), failure)
	}
	return err
}

// admit asks whether c would run, without settling it.
func admit(g *limit.Repeats, c limit.RepeatCall) error {
	_, err := g.Admit(context.Background(), c)
	return err
}

func TestRepeatedCountsOnlyFailuresAnIdenticalCallCannotOvercome(t *testing.T) {
	t.Parallel()
	counted := map[envelope.Code]bool{
		envelope.ValidationError: true, envelope.NotFound: true, envelope.AccessDenied: true, envelope.ConfigurationError: true,
	}
	for _, c := range envelope.Codes() {
		assert.Equal(t, counted[c], limit.Repeated(c, false), "%s, not retryable", c)
		assert.False(t, limit.Repeated(c, true), "%s, retryable: never", c)
	}
}

func TestRepeatsHoldsBackWithABackoffAndQuotesTheLastFailure(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Unix(1e9, 0)}
	g := limit.NewRepeatsAt(3, 10*time.Minute, 100, clk.now)
	c := call("alice", "read_file", `{"path":"later.txt"}`)
	steps := []string{"one", strings.Repeat("x", limit.RepeatMaxStepBytes+1), "two", "three", "four", "five"}
	for i := range 3 {
		require.NoError(t, run(t, g, c, fail(envelope.NotFound, "later.txt does not exist", steps...)), "failure %d runs", i+1)
	}
	err := run(t, g, c, nil)
	require.Error(t, err, "the 4th identical call is held back")
	env := render(err)
	assert.Equal(t, envelope.ExecutionFailed, env.ErrorType)
	assert.True(t, env.Retryable)
	assert.Equal(t, int64(1000), env.RetryAfterMS)
	assert.Contains(t, env.Message, "Not run: this call of read_file, with these arguments, already failed 3 times")
	assert.Contains(t, env.Message, "not_found: later.txt does not exist")
	assert.Equal(t, []string{"one", "two", "three", "four"}, env.NextSteps[1:5], "at most 4 steps kept, a step too long left out")
	assert.Contains(t, env.NextSteps[5], "after 1000 ms")

	clk.add(999 * time.Millisecond)
	require.Error(t, run(t, g, c, nil), "still held back")
	clk.add(time.Millisecond)
	require.NoError(t, run(t, g, c, fail(envelope.NotFound, "still missing")), "runs once the wait is over")
	err = run(t, g, c, nil)
	require.Error(t, err)
	assert.Equal(t, int64(2000), render(err).RetryAfterMS, "the wait doubles")
	for range 10 {
		clk.add(time.Hour / 60)
		_ = run(t, g, c, fail(envelope.NotFound, "gone"))
	}
	assert.LessOrEqual(t, render(run(t, g, c, nil)).RetryAfterMS, int64(60_000), "never more than a minute")
}

func TestRepeatsReleasesOnSuccessAndOnNewCredentials(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Unix(1e9, 0)}
	g := limit.NewRepeatsAt(3, 10*time.Minute, 100, clk.now)
	read := call("alice", "read_file", `{"path":"later.txt"}`)
	for range 3 {
		require.NoError(t, run(t, g, read, fail(envelope.NotFound, "missing")))
	}
	require.Error(t, run(t, g, read, nil))
	require.NoError(t, run(t, g, call("alice", "write_file", `{"path":"later.txt"}`), nil), "the write succeeds")
	require.NoError(t, run(t, g, read, nil), "any success of the caller releases the read")
	assert.True(t, g.Idle())

	denied := read
	denied.Caller.Credential = "Bearer old"
	for range 3 {
		require.NoError(t, run(t, g, denied, fail(envelope.AccessDenied, "no rights")))
	}
	require.Error(t, run(t, g, denied, nil))
	renewed := denied
	renewed.Caller.Credential = "Bearer new"
	require.NoError(t, run(t, g, renewed, nil), "new credentials start over")
}

func TestRepeatsNeverCountsWhatRepeatingMayOvercome(t *testing.T) {
	t.Parallel()
	g := limit.NewRepeats(1, time.Hour, nil, 100, 0)
	c := call("alice", "t", `{}`)
	for _, f := range []*envelope.Envelope{
		fail(envelope.AuthenticationFailed, "expired"), fail(envelope.ExecutionFailed, "boom"), fail(envelope.InternalError, "x"),
		{ErrorType: envelope.NotFound, Retryable: true},
	} {
		require.NoError(t, run(t, g, c, f))
	}
	assert.True(t, g.Idle(), "nothing counted")
	continued := c
	continued.Continued = true
	for range 3 {
		require.NoError(t, run(t, g, continued, fail(envelope.ValidationError, "the state did not verify: start over")))
	}
	assert.True(t, g.Idle(), "a call that echoes a requestState is never counted")
	require.NoError(t, run(t, g, c, nil), "the fresh start runs")
}

func TestRepeatsScopesCountsToTheirCaller(t *testing.T) {
	t.Parallel()
	g := limit.NewRepeats(2, time.Hour, nil, 100, 0)
	for range 2 {
		require.NoError(t, run(t, g, call("alice", "t", `{"a":1}`), fail(envelope.AccessDenied, "no")))
	}
	require.Error(t, run(t, g, call("alice", "t", `{"a":1}`), nil))
	assert.NoError(t, admit(g, call("bob", "t", `{"a":1}`)), "another caller")
	assert.NoError(t, admit(g, call("alice", "u", `{"a":1}`)), "another tool")
	assert.NoError(t, admit(g, call("alice", "t", `{"a":2}`)), "other arguments")
	assert.Error(t, admit(g, call("alice", "t", ` { "a" : 1.0 } `)), "the same arguments spelled otherwise")
	for range 5 {
		require.NoError(t, run(t, g, call("", "t", `{"a":1}`), fail(envelope.AccessDenied, "no")), "an anonymous caller is never held back")
	}
	// A session ID of a megabyte is named by its digest: another one is
	// another caller.
	huge := limit.RepeatCall{Caller: limit.Caller{Session: strings.Repeat("s", 1<<20)}, Tool: "t", Args: []byte(`{}`)}
	for range 2 {
		require.NoError(t, run(t, g, huge, fail(envelope.AccessDenied, "no")))
	}
	assert.Error(t, admit(g, huge))
	other1 := huge
	other1.Caller.Session = strings.Repeat("s", 1<<20-1) + "t"
	assert.NoError(t, admit(g, other1), "another long session, another caller")

	// Without a key or a session, the credentials name the caller.
	byCredential := limit.RepeatCall{Caller: limit.Caller{Credential: "Bearer dave"}, Tool: "t", Args: []byte(`{}`)}
	for range 2 {
		require.NoError(t, run(t, g, byCredential, fail(envelope.AccessDenied, "no")))
	}
	assert.Error(t, admit(g, byCredential))
	other := byCredential
	other.Caller.Credential = "Bearer erin"
	assert.NoError(t, admit(g, other), "other credentials, another caller")
	session := byCredential
	session.Caller.Session = "s1"
	assert.NoError(t, admit(g, session), "a session is its own caller, whatever its credentials")

	big := call("carol", "t", `{"id":9007199254740993}`)
	for range 2 {
		require.NoError(t, run(t, g, big, fail(envelope.NotFound, "no")))
	}
	assert.NoError(t, admit(g, call("carol", "t", `{"id":9007199254740992}`)), "two integers past 2^53 are two calls")
	assert.Error(t, admit(g, big))
}

// A flood of distinct failures from one caller evicts its own oldest,
// never another caller's, and memory stays bounded.
func TestRepeatsMemoryIsBoundedAndFair(t *testing.T) {
	t.Parallel()
	g := limit.NewRepeats(1, time.Hour, nil, 10_000, 0)
	require.NoError(t, run(t, g, call("alice", "t", `{"kept":1}`), fail(envelope.NotFound, "no")))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 10_050 {
		_ = run(t, g, call("mallory", "t", fmt.Sprintf(`{"i":%d}`, i)), fail(envelope.NotFound, strings.Repeat("m", 100), "step"))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	assert.Error(t, run(t, g, call("alice", "t", `{"kept":1}`), nil), "alice's failure is still remembered")
	assert.Error(t, run(t, g, call("mallory", "t", `{"i":10049}`), nil), "mallory's newest is remembered: the guard stays on")
	assert.NoError(t, run(t, g, call("mallory", "t", `{"i":0}`), nil), "mallory's oldest was evicted")
	assert.LessOrEqual(t, limit.RepeatsLive(g), 1+limit.RepeatMaxPerCaller)
	t.Logf("live %d calls, heap %+d bytes", limit.RepeatsLive(g), int64(after.HeapAlloc)-int64(before.HeapAlloc))

	// Many callers: the memory's bound holds, the least recent go first.
	small := limit.NewRepeats(1, time.Hour, nil, 50, 0)
	for i := range 1000 {
		_ = run(t, small, call(fmt.Sprint("c", i), "t", `{}`), fail(envelope.NotFound, "no"))
	}
	assert.LessOrEqual(t, limit.RepeatsLive(small), 50)
	assert.Error(t, run(t, small, call("c999", "t", `{}`), nil))
	assert.NoError(t, run(t, small, call("c0", "t", `{}`), nil))
}

func TestRepeatsForgetsAfterTheWindow(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Unix(1e9, 0)}
	g := limit.NewRepeatsAt(2, time.Minute, 100, clk.now).WithBackoff(time.Hour, time.Hour)
	c := call("alice", "t", `{}`)
	for range 2 {
		require.NoError(t, run(t, g, c, fail(envelope.NotFound, "no")))
	}
	require.Error(t, run(t, g, c, nil))
	clk.add(time.Minute)
	require.NoError(t, run(t, g, c, fail(envelope.NotFound, "no")), "forgotten a window after the last failure")
	require.NoError(t, run(t, g, c, nil), "counting starts over")
}

func TestRepeatsAdmitDoesNotAllocateWhileNothingFailed(t *testing.T) {
	g := limit.NewRepeats(3, time.Minute, nil, 10, 0)
	ctx := context.Background()
	c := call("alice", "t", `{}`)
	if n := testing.AllocsPerRun(1000, func() {
		tk, _ := g.Admit(ctx, c)
		tk.Settle(ctx, nil)
	}); n != 0 {
		t.Errorf("%.0f allocations per call while nothing failed, want 0", n)
	}
}

func TestNewRepeatsPanicsOnBadConfiguration(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() { limit.NewRepeats(0, time.Hour, nil, 1, 0) })
	assert.Panics(t, func() { limit.NewRepeats(1, 0, nil, 1, 0) })
	assert.Panics(t, func() { limit.NewRepeats(1, time.Hour, nil, 0, 0) })
	assert.Panics(t, func() { limit.NewRepeats(1, time.Hour, nil, 1, -1) })
	assert.Panics(t, func() { limit.NewRepeats(1, time.Hour, nil, 1, 0).WithBackoff(0, time.Second) })
	assert.Panics(t, func() { limit.NewRepeats(1, time.Hour, nil, 1, 0).WithBackoff(time.Second, time.Millisecond) })
}

// The in-process guard's memory per remembered call, full (10,000 calls
// of 100 callers, each with a message of about 100 bytes of its own and
// one step): logged for
// the docs, and bounded well under the 2.5 KB DefaultRepeatMaxKeys
// documents for the largest failure kept.
func TestRepeatsMemoryPerCall(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory changes the heap")
	}
	g := limit.NewRepeats(3, time.Hour, nil, limit.DefaultRepeatMaxKeys, 0)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range limit.DefaultRepeatMaxKeys {
		f := fail(envelope.NotFound, fmt.Sprintf("file-%d.txt does not exist %s", i, strings.Repeat("m", 80)), "List the directory first.")
		_ = run(t, g, call(fmt.Sprint("caller-", i%100), "read_file", fmt.Sprintf(`{"path":"file-%d.txt"}`, i)), f)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / int64(limit.RepeatsLive(g))
	t.Logf("%d calls remembered, %d bytes each", limit.RepeatsLive(g), per)
	assert.Equal(t, limit.DefaultRepeatMaxKeys, limit.RepeatsLive(g))
	assert.Less(t, per, int64(1024))
	runtime.KeepAlive(g)
}

// hungRepeats is a RepeatStore that never answers: each call waits for
// its deadline.
type hungRepeats struct{ calls atomic.Int64 }

func (h *hungRepeats) RepeatEntry(ctx context.Context, _, _, _ string, _ limit.RepeatPolicy) (limit.RepeatEntry, bool, error) {
	h.calls.Add(1)
	<-ctx.Done()
	return limit.RepeatEntry{}, false, ctx.Err()
}

func (h *hungRepeats) RepeatFail(ctx context.Context, _, _, _ string, _ limit.Failure, _ limit.RepeatPolicy) (limit.RepeatEntry, error) {
	h.calls.Add(1)
	<-ctx.Done()
	return limit.RepeatEntry{}, ctx.Err()
}

func (h *hungRepeats) RepeatRelease(ctx context.Context, _ string) error {
	h.calls.Add(1)
	<-ctx.Done()
	return ctx.Err()
}

// A hung shared store costs the first call its deadline, not every call:
// the calls after it run unguarded at once while a probe in the
// background waits for the store, and the outage is logged once.
func TestRepeatsStopWaitingForAHungStore(t *testing.T) {
	t.Parallel()
	store := &hungRepeats{}
	var logs lockedLog
	o := limit.Evaluate(func(context.Context, struct{}) string { return "" }, []limit.Option[struct{}]{
		limit.WithRepeatStore[struct{}](store), limit.WithStoreTimeout[struct{}](20 * time.Millisecond),
		limit.WithLogger[struct{}](slog.New(slog.NewTextHandler(&logs, nil))),
	})
	g := o.Repeats(3, time.Hour)
	c := call("alice", "t", `{}`)
	for range 50 {
		require.NoError(t, run(t, g, c, fail(envelope.NotFound, "no")), "without its store, the call runs")
	}
	// The first call asked the store (and found it hung); the other 49,
	// and their failures, did not wait for it; at most a few probes ran.
	assert.LessOrEqual(t, store.calls.Load(), int64(4), "store calls")
	assert.Equal(t, 1, strings.Count(logs.String(), limit.RepeatStoreLogMessage), logs.String())
}
