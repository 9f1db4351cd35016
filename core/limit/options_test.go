package limit_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
)

// req is the request of a front in these tests: the key it names.
type req struct{ who string }

func byWho(_ context.Context, r req) string { return r.who }

func global(context.Context, req) string { return "" }

// TestOptionPanicsNameTheOption: bad configuration panics when the option
// is made, with the sentence both fronts have always given.
func TestOptionPanicsNameTheOption(t *testing.T) {
	t.Parallel()
	o := limit.Evaluate(global, nil)
	for want, make := range map[string]func(){
		`limit: WithToolTimeout("shop_search", -1s): negative duration`:     func() { limit.WithToolTimeout[req]("shop_search", -time.Second) },
		"limit: WithKey with a nil function":                                func() { limit.WithKey[req](nil) },
		"limit: WithMaxKeys(0): need at least 1":                            func() { limit.WithMaxKeys[req](0) },
		"limit: WithMaxWait(-1ms): negative duration":                       func() { limit.WithMaxWait[req](-time.Millisecond) },
		"limit: WithStore with a nil Store":                                 func() { limit.WithStore[req](nil) },
		"limit: WithStoreTimeout(0s): need a positive duration":             func() { limit.WithStoreTimeout[req](0) },
		"limit: WithOnStoreUnavailable with a nil function":                 func() { limit.WithOnStoreUnavailable[req](nil) },
		"limit: Evaluate with a nil default key function":                   func() { limit.Evaluate[req](nil, nil) },
		"limit: Rate(0, 1): need a positive rate and a burst of at least 1": func() { o.Rate(0, 1) },
		"limit: Rate(1, 0): need a positive rate and a burst of at least 1": func() { o.Rate(1, 0) },
		"limit: Concurrency(0): need at least 1":                            func() { o.Slots(0) },
		"limit: Timeout(-1s): negative duration":                            func() { o.Timeouts(-time.Second) },
	} {
		assert.PanicsWithValue(t, want, make)
	}
}

func TestEvaluateDefaults(t *testing.T) {
	t.Parallel()
	o := limit.Evaluate(byWho, []limit.Option[req]{nil}) // a nil option is skipped
	assert.False(t, o.PerTool())
	assert.Nil(t, o.Logger(), "nil: slog.Default at the time")
	assert.Empty(t, o.EnvelopeOptions())
	assert.Equal(t, 3*time.Second, o.Timeouts(3*time.Second)("shop_search"), "no per-tool timeouts")
	assert.Nil(t, o.Rate(rate.Inf, 1), "rate.Inf: the layer is off")

	allow := o.Rate(rate.Every(time.Hour), 1)
	ctx := context.Background()
	require.NoError(t, allow(ctx, "", req{"alice"}))
	require.NoError(t, allow(ctx, "", req{"bob"}), "the default key function keys the buckets")
	err := allow(ctx, "shop_report", req{"alice"})
	require.Error(t, err, "one budget for every tool: the tool's name goes to the records only")
	assert.Equal(t, envelope.ExecutionFailed, envelope.CodeOf(err))
	perTool := limit.Evaluate(byWho, []limit.Option[req]{limit.WithPerTool[req]()}).Rate(rate.Every(time.Hour), 1)
	require.NoError(t, perTool(ctx, "shop_search", req{"alice"}))
	require.NoError(t, perTool(ctx, "shop_report", req{"alice"}), "WithPerTool: another tool, another bucket")
	require.Error(t, perTool(ctx, "shop_report", req{"alice"}))
}

func TestWithKeyReplacesTheDefault(t *testing.T) {
	t.Parallel()
	allow := limit.Evaluate(byWho, []limit.Option[req]{limit.WithKey(global)}).Rate(rate.Every(time.Hour), 1)
	ctx := context.Background()
	require.NoError(t, allow(ctx, "", req{"alice"}))
	assert.Error(t, allow(ctx, "", req{"bob"}), "one global bucket")
}

func TestWithToolTimeout(t *testing.T) {
	t.Parallel()
	o := limit.Evaluate(global, []limit.Option[req]{
		limit.WithToolTimeout[req]("shop_report", time.Minute),
		limit.WithToolTimeout[req]("shop_export", 0),
	})
	of := o.Timeouts(time.Second)
	assert.Equal(t, time.Minute, of("shop_report"))
	assert.Equal(t, time.Duration(0), of("shop_export"), "zero exempts the tool")
	assert.Equal(t, time.Second, of("shop_search"))
	assert.Equal(t, time.Minute, o.Timeouts(0)("shop_report"), "a default of zero times out only the tools named")
}

func TestWithPerToolAndMaxWaitShapeTheSlots(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	shared := limit.Evaluate(global, []limit.Option[req]{limit.WithMaxWait[req](0)}).Slots(1)
	slot, err := shared.Acquire(ctx, "shop_search")
	require.NoError(t, err)
	_, err = shared.Acquire(ctx, "shop_report")
	assert.Error(t, err, "one slot for every tool, refused at once")
	slot.Release(nil)

	o := limit.Evaluate(global, []limit.Option[req]{limit.WithPerTool[req](), limit.WithMaxWait[req](0)})
	assert.True(t, o.PerTool())
	per := o.Slots(1)
	slot, err = per.Acquire(ctx, "shop_search")
	require.NoError(t, err)
	defer slot.Release(nil)
	other, err := per.Acquire(ctx, "shop_report")
	require.NoError(t, err, "another tool, its own slot")
	other.Release(nil)
}

func TestWithEnvelopeOptionsAdds(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	o := limit.Evaluate(global, []limit.Option[req]{
		limit.WithEnvelopeOptions[req](envelope.WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))),
		limit.WithEnvelopeOptions[req](envelope.WithInternalMessage("The shop broke; try later.")),
	})
	require.Len(t, o.EnvelopeOptions(), 2, "each call adds, none replaces")
	env := envelope.NewRenderer(o.EnvelopeOptions()...).Error(context.Background(), envelope.Call{Tool: "shop_search"}, errors.New("disk full"))
	assert.True(t, strings.HasPrefix(env.Message, "The shop broke; try later."), "the second call's option: %q", env.Message)
	assert.Contains(t, logs.String(), env.IncidentID, "the first call's option")
}

// brokenStore is a store that cannot decide.
type brokenStore struct{}

func (brokenStore) Limiter(rate.Limit, int) limit.Limiter { return brokenStore{} }
func (brokenStore) Take(context.Context, string, string) (time.Duration, bool, error) {
	return 0, false, errors.New("connection refused")
}

// hungStore answers only when its caller's deadline has passed.
type hungStore struct{}

func (hungStore) Limiter(rate.Limit, int) limit.Limiter { return hungStore{} }
func (hungStore) Take(ctx context.Context, _, _ string) (time.Duration, bool, error) {
	<-ctx.Done()
	return 0, false, ctx.Err()
}

func TestStoreOptionsReachTheStore(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	var seen []error
	o := limit.Evaluate(global, []limit.Option[req]{
		limit.WithStore[req](brokenStore{}),
		limit.WithLogger[req](slog.New(slog.NewTextHandler(&logs, nil))),
		limit.WithOnStoreUnavailable[req](func(_ context.Context, err error) { seen = append(seen, err) }),
	})
	ctx := context.Background()
	assert.NoError(t, o.Rate(1, 1)(ctx, "", req{}), "fail open by default")
	assert.Contains(t, logs.String(), limit.StoreLogMessage, "WithLogger's logger")
	assert.Len(t, seen, 1, "WithOnStoreUnavailable's hook")

	closed := limit.Evaluate(global, []limit.Option[req]{limit.WithStore[req](brokenStore{}), limit.WithFailClosed[req](),
		limit.WithLogger[req](slog.New(slog.DiscardHandler))}).Rate(1, 1)
	err := closed(ctx, "", req{})
	require.Error(t, err, "WithFailClosed refuses")
	assert.Equal(t, envelope.ExecutionFailed, envelope.CodeOf(err))

	hung := limit.Evaluate(global, []limit.Option[req]{limit.WithStore[req](hungStore{}), limit.WithFailClosed[req](),
		limit.WithStoreTimeout[req](time.Millisecond), limit.WithLogger[req](slog.New(slog.DiscardHandler))}).Rate(1, 1)
	assert.Error(t, hung(ctx, "", req{}), "WithStoreTimeout bounds a hung store's call")
}

func TestHold(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	slots := limit.NewSlots(1, false, 0)
	answer := new(int)
	refuse := func(err error) *int { return nil }
	res, err := limit.Hold(ctx, slots, "shop_search", func() (*int, error) { return answer, nil }, refuse)
	require.NoError(t, err)
	assert.Same(t, answer, res)

	inside := false
	_, _ = limit.Hold(ctx, slots, "shop_search", func() (*int, error) {
		var refused error
		limit.Hold(ctx, slots, "shop_search", func() (*int, error) { t.Error("ran without a slot"); return nil, nil },
			func(err error) *int { refused = err; return nil })
		inside = refused != nil
		return answer, nil
	}, refuse)
	assert.True(t, inside, "a call finding the slot taken is refused through refuse")

	assert.PanicsWithValue(t, "boom", func() {
		_, _ = limit.Hold(ctx, slots, "shop_search", func() (*int, error) { panic("boom") }, refuse)
	})
	_, err = limit.Hold(ctx, slots, "shop_search", func() (*int, error) { return answer, nil }, refuse)
	assert.NoError(t, err, "the panicking call gave its slot back")
}

// TestHoldAndDecideDoNotAllocate: what a front's Concurrency and Rate run
// per allowed call costs no allocation.
func TestHoldAndDecideDoNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("escape analysis differs under -race")
	}
	ctx := context.Background()
	o := limit.Evaluate(byWho, nil)
	slots := o.Slots(4)
	answer := new(int)
	r := req{"alice"}
	call := func() (*int, error) { return answer, nil }
	refuse := func(error) *int { return nil }
	if n := testing.AllocsPerRun(1000, func() { _, _ = limit.Hold(ctx, slots, "shop_search", call, refuse) }); n != 0 {
		t.Errorf("Hold: %.0f allocations, want 0", n)
	}
	allow := o.Rate(1e12, 1<<30)
	_ = allow(ctx, "", r)
	if n := testing.AllocsPerRun(1000, func() { _ = allow(ctx, "", r) }); n != 0 {
		t.Errorf("Rate: %.0f allocations, want 0", n)
	}
}
