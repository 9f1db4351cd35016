package limit_test

import (
	"context"
	"fmt"
	"log/slog"
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

// toolReq is a consumer's tool-call request in these tests.
type toolReq struct {
	who, tool, args string
	continued       bool
}

// reader reads a toolReq as the guard sees it, counting the reads.
func reader(reads *atomic.Int64) func(context.Context, toolReq) limit.RepeatCall {
	return func(_ context.Context, r toolReq) limit.RepeatCall {
		reads.Add(1)
		return limit.RepeatCall{Caller: limit.Caller{Key: r.who}, Tool: r.tool, Args: []byte(r.args), Continued: r.continued}
	}
}

// runStage admits r through s and, if it runs, settles it with failure.
func runStage(t *testing.T, s limit.RepeatStage[toolReq], r toolReq, failure *envelope.Envelope) error {
	t.Helper()
	ctx := context.Background()
	tk, err := s.Admit(ctx, r)
	if err == nil {
		s.Settle(ctx, tk, r, failure)
	}
	return err
}

// The stage reads a request only when the guard needs it: not while
// nothing failed, nor for a success then; a failure is read at settling,
// counted, and holds the identical call back as the guard does.
func TestRepeatStageReadsARequestOnlyWhenTheGuardNeedsIt(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Unix(1e9, 0)}
	g := limit.NewRepeatsAt(2, time.Hour, 100, clk.now)
	var reads atomic.Int64
	s := limit.NewRepeatStage(g, reader(&reads))
	assert.Same(t, g, s.Guard())
	read := toolReq{who: "alice", tool: "read_file", args: `{"path":"a.txt"}`}

	require.NoError(t, runStage(t, s, read, nil))
	assert.Zero(t, reads.Load(), "a success while nothing failed reads nothing")

	require.NoError(t, runStage(t, s, read, fail(envelope.NotFound, "a.txt does not exist")))
	assert.Equal(t, int64(1), reads.Load(), "a failure is read once, at settling")
	assert.False(t, g.Idle())

	require.NoError(t, runStage(t, s, toolReq{who: "alice", tool: "read_file", args: ` { "path" : "a.txt" } `},
		fail(envelope.NotFound, "a.txt does not exist")), "the second failure runs")
	err := runStage(t, s, read, nil)
	require.Error(t, err, "the third identical call is held back")
	env := render(err)
	assert.Equal(t, envelope.ExecutionFailed, env.ErrorType)
	assert.Contains(t, env.Message, "already failed 2 times")

	require.NoError(t, runStage(t, s, toolReq{who: "bob", tool: "read_file", args: read.args}, nil), "another caller runs")
	require.NoError(t, runStage(t, s, toolReq{who: "alice", tool: "list_dir", args: `{}`}, nil), "a success of alice's")
	require.NoError(t, runStage(t, s, read, nil), "releases the call held back")
	assert.True(t, g.Idle())
}

// A request that continues a multi round-trip call is neither held back
// nor counted, also when the stage reads it only at settling.
func TestRepeatStageNeverCountsAContinuedCall(t *testing.T) {
	t.Parallel()
	g := limit.NewRepeatsAt(1, time.Hour, 100, (&clock{t: time.Unix(1e9, 0)}).now)
	var reads atomic.Int64
	s := limit.NewRepeatStage(g, reader(&reads))
	cont := toolReq{who: "alice", tool: "deploy", args: `{}`, continued: true}
	for range 3 {
		require.NoError(t, runStage(t, s, cont, fail(envelope.ValidationError, "requestState did not verify")))
	}
	assert.True(t, g.Idle(), "a continued call's failures are not counted")
	cont.continued = false
	require.NoError(t, runStage(t, s, cont, nil), "the same call started over runs")
}

// A continued call's success releases the caller's counts, as any
// success does: the write that completes once its client confirmed it
// (its first round, input_required, released nothing) lets the read it
// fixed run again.
func TestRepeatStageReleasesOnAContinuedSuccess(t *testing.T) {
	t.Parallel()
	g := limit.NewRepeatsAt(1, time.Hour, 100, (&clock{t: time.Unix(1e9, 0)}).now)
	var reads atomic.Int64
	s := limit.NewRepeatStage(g, reader(&reads))
	read := toolReq{who: "alice", tool: "read_file", args: `{"path":"a.txt"}`}
	require.NoError(t, runStage(t, s, read, fail(envelope.NotFound, "a.txt does not exist")))
	require.Error(t, runStage(t, s, read, nil), "held back after its failure")
	require.NoError(t, runStage(t, s, toolReq{who: "alice", tool: "write_file", args: `{"path":"a.txt"}`, continued: true}, nil))
	require.NoError(t, runStage(t, s, read, nil), "the read runs again after the continued write succeeded")
}

// A stage without a guard admits every call and never reads one.
func TestRepeatStageWithoutAGuard(t *testing.T) {
	t.Parallel()
	var reads atomic.Int64
	s := limit.NewRepeatStage[toolReq](nil, reader(&reads))
	assert.Nil(t, s.Guard())
	r := toolReq{who: "alice", tool: "t", args: `{}`}
	for range 5 {
		require.NoError(t, runStage(t, s, r, fail(envelope.NotFound, "no")))
	}
	assert.Zero(t, reads.Load())
	assert.PanicsWithValue(t, "limit: NewRepeatStage with a nil read function", func() {
		limit.NewRepeatStage[toolReq](limit.NewRepeats(1, time.Hour, nil, 1, 0), nil)
	})
}

// The guard's policy is what NewRepeats and WithBackoff set, and what a
// front's options make of Repeats, WithRepeatBackoff and WithMaxKeys.
func TestRepeatsPolicy(t *testing.T) {
	t.Parallel()
	g := limit.NewRepeats(3, time.Minute, nil, 10, 0)
	assert.Equal(t, limit.RepeatPolicy{N: 3, Window: time.Minute, Backoff: limit.DefaultRepeatBackoff, MaxBackoff: limit.DefaultRepeatMaxBackoff}, g.Policy())
	b := g.WithBackoff(2*time.Second, 8*time.Second)
	assert.Equal(t, limit.RepeatPolicy{N: 3, Window: time.Minute, Backoff: 2 * time.Second, MaxBackoff: 8 * time.Second}, b.Policy())
	assert.Equal(t, limit.DefaultRepeatBackoff, g.Policy().Backoff, "WithBackoff returns a copy")

	o := limit.Evaluate(byWho, []limit.Option[req]{limit.WithRepeatBackoff[req](3*time.Second, 9*time.Second), limit.WithMaxKeys[req](5)})
	assert.Equal(t, limit.RepeatPolicy{N: 2, Window: time.Hour, Backoff: 3 * time.Second, MaxBackoff: 9 * time.Second}, o.Repeats(2, time.Hour).Policy())
	assert.Equal(t, limit.DefaultRepeatBackoff, limit.Evaluate(byWho, nil).Repeats(1, time.Hour).Policy().Backoff)

	for want, bad := range map[string]func(){
		"limit: WithRepeatBackoff(0s, 1s): need 0 < backoff <= max":                func() { limit.WithRepeatBackoff[req](0, time.Second) },
		"limit: WithRepeatBackoff(2s, 1s): need 0 < backoff <= max":                func() { limit.WithRepeatBackoff[req](2*time.Second, time.Second) },
		"limit: Repeats(0, 1h0m0s): need at least 1 failure and a positive window": func() { o.Repeats(0, time.Hour) },
		"limit: Repeats(1, 0s): need at least 1 failure and a positive window":     func() { o.Repeats(1, 0) },
		"limit: WithStoreReplicas(0): need at least 1":                             func() { limit.WithStoreReplicas[req](0) },
		"limit: WithRepeatStore with a nil RepeatStore":                            func() { limit.WithRepeatStore[req](nil) },
	} {
		assert.PanicsWithValue(t, want, bad)
	}
}

// WithMaxKeys bounds what the in-process guard remembers as it bounds the
// rate limit's buckets.
func TestWithMaxKeysBoundsTheGuard(t *testing.T) {
	t.Parallel()
	g := limit.Evaluate(byWho, []limit.Option[req]{limit.WithMaxKeys[req](2)}).Repeats(1, time.Hour)
	for i, args := range []string{`{"n":1}`, `{"n":2}`, `{"n":3}`} {
		require.NoError(t, run(t, g, call("alice", "t", args), fail(envelope.NotFound, "no")), "failure %d", i)
	}
	assert.NoError(t, admit(g, call("alice", "t", `{"n":1}`)), "the oldest of three failed calls is forgotten")
	assert.Error(t, admit(g, call("alice", "t", `{"n":3}`)), "the newest is held back")
}

// Key is the front's default key function, or WithKey's; CallerKey is
// WithKey's only, so that a Repeats layer falls back to its front's
// caller.
func TestKeyAndCallerKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	def := limit.Evaluate(byWho, nil)
	assert.Equal(t, "alice", def.Key()(ctx, req{"alice"}))
	assert.Nil(t, def.CallerKey())
	set := limit.Evaluate(byWho, []limit.Option[req]{limit.WithKey(func(_ context.Context, r req) string { return "team-" + r.who })})
	assert.Equal(t, "team-alice", set.Key()(ctx, req{"alice"}))
	require.NotNil(t, set.CallerKey())
	assert.Equal(t, "team-alice", set.CallerKey()(ctx, req{"alice"}))
}

// Without its store, a Rate layer decides by a local bucket of the key
// (the default), which WithStoreReplicas shares out between the
// replicas, or allows every call (WithFailOpen), or refuses
// (WithFailClosed); the last of the two given wins.
func TestStoreOutageOptionsDecideTheCallsTheStoreMissed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	allowed := func(opts ...limit.Option[req]) int {
		opts = append([]limit.Option[req]{limit.WithStore[req](brokenStore{}), limit.WithLogger[req](slog.New(slog.DiscardHandler))}, opts...)
		allow := limit.Evaluate(global, opts).Rate(rate.Every(time.Hour), 4)
		n := 0
		for range 10 {
			if allow(ctx, "", req{}) == nil {
				n++
			}
		}
		return n
	}
	assert.Equal(t, 4, allowed(), "the local bucket: the burst")
	assert.Equal(t, 2, allowed(limit.WithStoreReplicas[req](2)), "two replicas: half the burst each")
	assert.Equal(t, 1, allowed(limit.WithStoreReplicas[req](8)), "at least one call")
	assert.Equal(t, 10, allowed(limit.WithFailOpen[req]()), "fail open: every call")
	assert.Equal(t, 10, allowed(limit.WithFailClosed[req](), limit.WithFailOpen[req]()), "WithFailOpen undoes WithFailClosed")
	assert.Equal(t, 0, allowed(limit.WithFailOpen[req](), limit.WithFailClosed[req]()), "WithFailClosed undoes WithFailOpen")
}

// noVerdictStore answers, but with no verdict for any bucket.
type noVerdictStore struct{ takes *atomic.Int64 }

func (s noVerdictStore) Limiter(rate.Limit, int) limit.Limiter { return s }
func (s noVerdictStore) Take(context.Context, string, string) (time.Duration, bool, error) {
	s.takes.Add(1)
	return 0, false, fmt.Errorf("bucket unreadable: %w", limit.ErrNoVerdict)
}

// A store that answers with no verdict for a bucket is up: each call is
// asked of it, decided by the local bucket, and logged, without the
// store counted as down.
func TestStoreWithNoVerdictStaysUp(t *testing.T) {
	t.Parallel()
	var takes atomic.Int64
	var logs lockedLog
	allow := limit.Evaluate(global, []limit.Option[req]{limit.WithStore[req](noVerdictStore{&takes}),
		limit.WithLogger[req](logs.logger())}).Rate(rate.Every(time.Hour), 2)
	ctx := context.Background()
	require.NoError(t, allow(ctx, "shop_search", req{}))
	require.NoError(t, allow(ctx, "shop_search", req{}))
	err := allow(ctx, "shop_search", req{})
	require.Error(t, err, "the local bucket decides")
	assert.Equal(t, envelope.ExecutionFailed, envelope.CodeOf(err))
	assert.Equal(t, int64(3), takes.Load(), "every call asks the store")
	log := logs.String()
	assert.Equal(t, 3, strings.Count(log, limit.StoreLogMessage), log)
	assert.Equal(t, 2, strings.Count(log, "outcome=\"allowed (local bucket)\""), log)
	assert.Equal(t, 1, strings.Count(log, "outcome=\"refused (local bucket)\""), log)
	assert.NotContains(t, log, limit.StoreStillDownLogMessage)

	ended, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, allow(ended, "shop_search", req{}), context.Canceled, "a caller gone away gets no verdict")
}
