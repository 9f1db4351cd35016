package limit_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
)

func TestRepeatedCountsOnlyFailuresAnIdenticalCallCannotOvercome(t *testing.T) {
	t.Parallel()
	counted := map[envelope.Code]bool{
		envelope.ValidationError: true, envelope.NotFound: true, envelope.AccessDenied: true,
		envelope.AuthenticationFailed: true, envelope.ConfigurationError: true,
	}
	for _, c := range envelope.Codes() {
		assert.Equal(t, counted[c], limit.Repeated(c, false), "%s, not retryable", c)
		assert.False(t, limit.Repeated(c, true), "%s, retryable: never", c)
	}
}

func TestRepeatsInProcess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := limit.NewRepeats(2, time.Hour, nil, 100, 0)
	args := []byte(`{"sku":"SKU-404"}`)
	require.True(t, g.Idle())
	require.NoError(t, g.Check(ctx, "alice", "shop_get", args))
	g.Record(ctx, "alice", "shop_get", args, envelope.ExecutionFailed, false, nil)
	g.Record(ctx, "alice", "shop_get", args, envelope.NotFound, true, nil)
	require.True(t, g.Idle(), "failures that do not count leave nothing behind")
	steps := []string{"one", strings.Repeat("x", limit.RepeatMaxStepBytes+1), "two", "three", "four", "five"}
	for range 2 {
		require.NoError(t, g.Check(ctx, "alice", "shop_get", args))
		g.Record(ctx, "alice", "shop_get", args, envelope.AccessDenied, false, steps)
	}
	require.False(t, g.Idle())
	err := g.Check(ctx, "alice", "shop_get", args)
	require.Error(t, err)
	env := envelope.NewRenderer().Error(ctx, envelope.Call{Tool: "shop_get"}, err)
	assert.Equal(t, envelope.AccessDenied, env.ErrorType)
	assert.False(t, env.Retryable)
	assert.Contains(t, env.Message, "This call of shop_get already failed 2 times with these arguments (access_denied)")
	assert.Equal(t, []string{"one", "two", "three", "four"}, env.NextSteps[1:5], "at most 4 steps kept, a step too long left out")
	for _, other := range [][3]string{{"bob", "shop_get", string(args)}, {"alice", "shop_list", string(args)}, {"alice", "shop_get", `{"sku":"SKU-405"}`}} {
		assert.NoError(t, g.Check(ctx, other[0], other[1], []byte(other[2])), "another caller, tool or arguments: %q", other)
	}
	// No split of the same bytes into key and tool names the same call.
	assert.NotEqual(t, limit.Digest("ab", "c", nil), limit.Digest("a", "bc", nil))
	assert.Len(t, limit.Digest(strings.Repeat("k", 1<<20), "t", args), 32)
}

// The guard remembers at most maxKeys calls: a flood of distinct failing
// calls cannot grow it, nor push out what it remembers; expired entries
// make room again.
func TestRepeatsMemoryIsBoundedAndExpires(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := limit.NewRepeats(1, time.Hour, nil, 10, 0)
	g.Record(ctx, "alice", "t", []byte("kept"), envelope.NotFound, false, nil)
	for i := range 1000 {
		g.Record(ctx, "mallory", "t", []byte(fmt.Sprint(i)), envelope.NotFound, false, nil)
	}
	require.Error(t, g.Check(ctx, "alice", "t", []byte("kept")), "the first failure is still remembered")
	assert.NoError(t, g.Check(ctx, "mallory", "t", []byte("999")), "the 1000th was not: no room")

	short := limit.NewRepeats(1, 30*time.Millisecond, nil, 1, 0)
	short.Record(ctx, "alice", "t", []byte("a"), envelope.NotFound, false, nil)
	require.Eventually(t, func() bool { return short.Check(ctx, "alice", "t", []byte("a")) == nil }, 10*time.Second, 5*time.Millisecond, "forgotten after the window")
	require.Eventually(t, func() bool {
		short.Record(ctx, "carol", "t", []byte("b"), envelope.NotFound, false, nil)
		return short.Check(ctx, "carol", "t", []byte("b")) != nil
	}, 10*time.Second, 50*time.Millisecond, "expired entries make room")
}

func TestRepeatsCheckDoesNotAllocateWhileNothingFailed(t *testing.T) {
	g := limit.NewRepeats(3, time.Minute, nil, 10, 0)
	ctx := context.Background()
	args := []byte(`{}`)
	if n := testing.AllocsPerRun(1000, func() { _ = g.Check(ctx, "alice", "t", args) }); n != 0 {
		t.Errorf("%.0f allocations per call while nothing failed, want 0", n)
	}
}

func TestNewRepeatsPanicsOnBadConfiguration(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() { limit.NewRepeats(0, time.Hour, nil, 1, 0) })
	assert.Panics(t, func() { limit.NewRepeats(1, 0, nil, 1, 0) })
	assert.Panics(t, func() { limit.NewRepeats(1, time.Hour, nil, 0, 0) })
	assert.Panics(t, func() { limit.NewRepeats(1, time.Hour, nil, 1, -1) })
}
