package limit_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
)

// holdReq is a consumer's tool call in the hold stage tests: who sends
// it, and whether its client acts on multi round-trip results.
type holdReq struct {
	who             string
	modern, canShed bool
}

func holdKey(_ context.Context, r holdReq) string { return r.who }

// holdReader reads a holdReq as a front does, counting the reads.
func holdReader(reads *atomic.Int64) func(context.Context, holdReq) limit.HoldCall {
	return func(_ context.Context, r holdReq) limit.HoldCall {
		reads.Add(1)
		return limit.HoldCall{Caller: "not the key", Modern: r.modern, CanShed: r.canShed}
	}
}

func holdOptions(opts ...limit.Option[holdReq]) *limit.Options[holdReq] {
	return limit.Evaluate(holdKey, opts)
}

// A Rate stage admits a call at once while its bucket has a token,
// without reading it; a refused call of a modern client is held until
// its token, and read with the stage's key as its caller; an older
// client's is refused at once with the bucket's wait, as without
// holding; another caller has its own bucket.
func TestRateStageHoldsOnlyAModernClientsRefusedCall(t *testing.T) {
	t.Parallel()
	var reads atomic.Int64
	s := holdOptions(limit.WithHoldCap[holdReq](time.Minute)).RateStage(20, 1, holdReader(&reads))
	require.NotNil(t, s)
	assert.Equal(t, time.Minute, s.Holds().Cap())
	ctx := context.Background()

	c, a, err := s.Admit(ctx, "search", holdReq{who: "alice", modern: true})
	require.NoError(t, err)
	assert.Equal(t, limit.Admitted, a)
	assert.Equal(t, limit.HoldCall{}, c)
	assert.Zero(t, reads.Load(), "a call admitted at once is not read")

	c, a, err = s.Admit(ctx, "search", holdReq{who: "alice"})
	assert.Equal(t, limit.Refused, a, "an older client")
	assert.Positive(t, envelope.RetryAfterOf(err), "the refusal carries the bucket's wait: %v", err)
	assert.Equal(t, "alice", c.Caller, "the caller is the stage's key, not what read said")

	c, a, err = s.Admit(ctx, "search", holdReq{who: "alice", modern: true})
	require.NoError(t, err)
	assert.Equal(t, limit.Held, a, "a modern client's call waits for its token")
	assert.Equal(t, limit.HoldCall{Caller: "alice", Modern: true}, c)
	assert.Equal(t, int64(2), reads.Load())
	assert.Zero(t, s.Holds().HeldNow(), "a call that ran is held no more")

	_, a, err = s.Admit(ctx, "search", holdReq{who: "bob"})
	require.NoError(t, err)
	assert.Equal(t, limit.Admitted, a, "bob's bucket is his own")
}

// With the hold off a Rate stage refuses every call past the rate as
// before, without reading it; per tool, each tool has its own bucket.
func TestRateStageWithoutHoldRefusesAtOnce(t *testing.T) {
	t.Parallel()
	var reads atomic.Int64
	s := holdOptions(limit.WithHoldCap[holdReq](0), limit.WithPerTool[holdReq]()).RateStage(1, 1, holdReader(&reads))
	assert.Nil(t, s.Holds())
	ctx := context.Background()
	modern := holdReq{who: "alice", modern: true, canShed: true}
	for _, c := range []struct {
		tool string
		want limit.Admission
	}{{"search", limit.Admitted}, {"search", limit.Refused}, {"buy", limit.Admitted}, {"buy", limit.Refused}} {
		_, a, err := s.Admit(ctx, c.tool, modern)
		assert.Equal(t, c.want, a, c.tool)
		if c.want == limit.Refused {
			assert.Positive(t, envelope.RetryAfterOf(err), c.tool)
		}
	}
	assert.Zero(t, reads.Load(), "no hold: no call is read")
}

// A Rate stage over a shared store holds a refused call too: the store
// is asked again after the wait, and the call runs once it admits it.
func TestRateStageHoldsThroughASharedStore(t *testing.T) {
	t.Parallel()
	store := &countingStore{admitAfter: 2}
	var reads atomic.Int64
	s := holdOptions(limit.WithStore[holdReq](store), limit.WithHoldCap[holdReq](time.Minute)).RateStage(1000, 1, holdReader(&reads))
	_, a, err := s.Admit(context.Background(), "search", holdReq{who: "alice", modern: true})
	require.NoError(t, err)
	assert.Equal(t, limit.Held, a)
	assert.Equal(t, int64(3), store.takes.Load(), "refused twice, then admitted")
}

// countingStore refuses the first admitAfter takes with a short wait,
// then admits every call.
type countingStore struct {
	admitAfter int64
	takes      atomic.Int64
}

func (s *countingStore) Limiter(rate.Limit, int) limit.Limiter { return s }

func (s *countingStore) Take(context.Context, string, string) (time.Duration, bool, error) {
	if s.takes.Add(1) <= s.admitAfter {
		return time.Millisecond, false, nil
	}
	return 0, true, nil
}

func TestHoldStagesPanicOnWhatTheyCannotDo(t *testing.T) {
	t.Parallel()
	read := holdReader(new(atomic.Int64))
	o := holdOptions()
	assert.Nil(t, o.RateStage(rate.Inf, 1, read), "an infinite rate limits nothing")
	for name, f := range map[string]func(){
		"zero rate":     func() { o.RateStage(0, 1, read) },
		"zero burst":    func() { o.RateStage(1, 0, read) },
		"nil rate read": func() { o.RateStage(1, 1, nil) },
		"nil slot read": func() { o.SlotStage(1, nil) },
		"zero slots":    func() { o.SlotStage(0, read) },
		"negative cap":  func() { limit.WithHoldCap[holdReq](-time.Nanosecond) },
		"holds max":     func() { limit.NewHolds(time.Second, 2, 1) },
		"holds per":     func() { limit.NewHolds(time.Second, 0, 1) },
		"holds cap":     func() { limit.NewHolds(-time.Second, 1, 1) },
	} {
		assert.Panics(t, f, name)
	}
}

func TestHoldCapDefaultsAndOff(t *testing.T) {
	t.Parallel()
	assert.Equal(t, limit.DefaultHoldCap, holdOptions().HoldCap())
	assert.Equal(t, time.Duration(0), holdOptions(limit.WithHoldCap[holdReq](0)).HoldCap())
	assert.Equal(t, time.Second, holdOptions(limit.WithHoldCap[holdReq](time.Second)).HoldCap())
	var none *limit.Holds
	assert.Zero(t, none.Cap())
	assert.Zero(t, none.HeldNow())
	assert.Nil(t, limit.NewHolds(0, 1, 1), "cap 0: no holding")
}

func TestAdmissionString(t *testing.T) {
	t.Parallel()
	for a, want := range map[limit.Admission]string{
		limit.Admitted: "admitted", limit.Held: "held", limit.Refused: "refused", limit.Shed: "shed", limit.Shed + 1: "unknown", 255: "unknown",
	} {
		assert.Equal(t, want, a.String())
	}
}

// slotCall runs req through st as a front does, answering "ran", the
// refusal's error, or "shed by <caller>".
func slotCall(ctx context.Context, st *limit.SlotStage[holdReq], req holdReq, run func(), shed bool) (string, error) {
	var shedFn func(limit.HoldCall) string
	if shed {
		shedFn = func(c limit.HoldCall) string { return "shed by " + c.Caller }
	}
	return limit.HoldSlot(ctx, st, "search", req, func() (string, error) {
		run()
		return "ran", nil
	}, func(err error) string { return "refused: " + err.Error() }, shedFn)
}

// A Concurrency stage holds a modern client's call that got no slot
// until the slot frees, and runs it then; an older client's is refused
// at once, and so is a call whose client has gone away.
func TestHoldSlotHoldsAModernCallUntilASlotFrees(t *testing.T) {
	t.Parallel()
	var reads atomic.Int64
	st := holdOptions(limit.WithMaxWait[holdReq](0), limit.WithHoldCap[holdReq](time.Minute)).SlotStage(1, holdReader(&reads))
	ctx := context.Background()
	release, running := make(chan struct{}), make(chan struct{})
	busy := make(chan string, 1)
	go func() {
		got, _ := slotCall(ctx, st, holdReq{who: "alice"}, func() { close(running); <-release }, true)
		busy <- got
	}()
	<-running
	assert.Zero(t, reads.Load(), "a call that got its slot at once is not read")

	got, err := slotCall(ctx, st, holdReq{who: "bob"}, func() { t.Error("ran without a slot") }, true)
	require.NoError(t, err)
	assert.Contains(t, got, "refused: ", "an older client is refused at once")

	gone, cancel := context.WithCancel(ctx)
	cancel()
	got, _ = slotCall(gone, st, holdReq{who: "bob", modern: true}, func() { t.Error("ran for a client gone") }, true)
	assert.Equal(t, "refused: "+context.Canceled.Error(), got)

	held := make(chan string, 1)
	go func() {
		got, _ := slotCall(ctx, st, holdReq{who: "bob", modern: true}, func() {}, true)
		held <- got
	}()
	require.Eventually(t, func() bool { return st.Holds().HeldNow() == 1 }, 5*time.Second, time.Millisecond)
	select {
	case got := <-held:
		t.Fatalf("the held call was answered while the slot was busy: %q", got)
	default:
	}
	close(release)
	assert.Equal(t, "ran", <-busy)
	assert.Equal(t, "ran", <-held, "the held call ran once the slot freed")
	assert.Zero(t, st.Holds().HeldNow())
}

// A caller whose held calls fill its bound gets its next call shed when
// the front can shed it, else refused; without holding, every call past
// the slots is refused.
func TestHoldSlotShedsWhenTheCallerHasNoRoomLeft(t *testing.T) {
	t.Parallel()
	st := holdOptions(limit.WithMaxWait[holdReq](0), limit.WithHoldCap[holdReq](time.Minute)).SlotStage(1, holdReader(new(atomic.Int64)))
	ctx := context.Background()
	release, running := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	var ran atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = slotCall(ctx, st, holdReq{who: "alice"}, func() { close(running); <-release }, true)
	}()
	<-running
	alice := holdReq{who: "alice", modern: true, canShed: true}
	for range limit.HoldPerCaller {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = slotCall(ctx, st, alice, func() { ran.Add(1) }, true)
		}()
	}
	require.Eventually(t, func() bool { return st.Holds().HeldNow() == limit.HoldPerCaller }, 10*time.Second, time.Millisecond)

	got, _ := slotCall(ctx, st, alice, func() { t.Error("ran without room") }, true)
	assert.Equal(t, "shed by alice", got)
	got, _ = slotCall(ctx, st, alice, func() { t.Error("ran without room") }, false)
	assert.Contains(t, got, "refused: ", "a front that cannot shed refuses")
	got, _ = slotCall(ctx, st, holdReq{who: "alice", modern: true}, func() { t.Error("ran without room") }, true)
	assert.Contains(t, got, "refused: ", "a call the front cannot shed is refused")

	close(release)
	wg.Wait()
	assert.Equal(t, int64(limit.HoldPerCaller), ran.Load(), "every held call ran, one at a time")

	off := holdOptions(limit.WithMaxWait[holdReq](0), limit.WithHoldCap[holdReq](0)).SlotStage(1, holdReader(new(atomic.Int64)))
	assert.Nil(t, off.Holds())
	inner, err := limit.HoldSlot(ctx, off, "search", alice, func() (string, error) {
		return slotCall(ctx, off, alice, func() { t.Error("ran in a slot taken") }, true)
	}, func(error) string { return "outer refused" }, nil)
	require.NoError(t, err)
	assert.Contains(t, inner, "refused: ", "no hold: refused at once")
}

// Reserve takes a token that will be there within the wait given, so
// that held calls run in the order they came and never faster than the
// rate; a token further away is refused, and nothing is taken.
func TestRateReserveTakesOnlyATokenWithinTheWait(t *testing.T) {
	t.Parallel()
	b := limit.NewRate(10, 1, 100) // a token every 100 ms
	now := time.Unix(1e9, 0)
	for _, key := range []string{"alice", ""} {
		wait, err := b.Reserve("", key, now, 0)
		require.NoError(t, err, "%q: the burst's token is there now", key)
		assert.Zero(t, wait)

		_, err = b.Reserve("", key, now, 50*time.Millisecond)
		assert.Equal(t, 100*time.Millisecond, envelope.RetryAfterOf(err), "%q: the next token is 100 ms away", key)

		wait, err = b.Reserve("", key, now, 100*time.Millisecond)
		require.NoError(t, err, "%q: the refused reservation took nothing", key)
		assert.Equal(t, 100*time.Millisecond, wait)

		wait, err = b.Reserve("", key, now, time.Second)
		require.NoError(t, err)
		assert.Equal(t, 200*time.Millisecond, wait, "%q: the reserved token is taken: the next is after it", key)
		assert.Equal(t, 300*time.Millisecond, envelope.RetryAfterOf(b.Allow("", key, now)), "%q: Allow sees both reservations", key)
	}
	wait, err := b.Reserve("search", "alice", now, 0)
	require.NoError(t, err, "a tool's bucket is its own")
	assert.Zero(t, wait)
}

// Through the in-process store a Rate stage reserves its token as the
// in-process buckets do.
func TestRateStageHoldsThroughTheMemoryStore(t *testing.T) {
	t.Parallel()
	s := holdOptions(limit.WithStore[holdReq](limit.MemoryStore(100)), limit.WithHoldCap[holdReq](time.Minute)).RateStage(20, 1, holdReader(new(atomic.Int64)))
	ctx := context.Background()
	modern := holdReq{who: "alice", modern: true}
	for _, want := range []limit.Admission{limit.Admitted, limit.Held, limit.Held} {
		_, a, err := s.Admit(ctx, "search", modern)
		require.NoError(t, err)
		assert.Equal(t, want, a)
	}
	_, a, err := s.Admit(ctx, "search", holdReq{who: "alice"})
	assert.Equal(t, limit.Refused, a, "an older client, after the held calls took the tokens")
	assert.Positive(t, envelope.RetryAfterOf(err))
}
