package limit_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/core/limit"
)

// flakyStore is the in-process store, hung while hung is set: a Take
// then waits for its context's deadline, as a call to a paused Redis
// does. It counts the Takes of each key, and the most Takes of keys no
// caller uses (the store's probes) that ran at once.
type flakyStore struct {
	hung    atomic.Bool
	callers map[string]bool // the keys callers use
	mu      sync.Mutex
	asked   map[string]int
	running int
	most    int // probes at once
	inner   limit.Store
}

func newFlakyStore(callers ...string) *flakyStore {
	f := &flakyStore{callers: map[string]bool{}, asked: map[string]int{}, inner: limit.MemoryStore(16)}
	for _, k := range callers {
		f.callers[k] = true
	}
	return f
}

func (f *flakyStore) Limiter(r rate.Limit, burst int) limit.Limiter {
	return flakyLimiter{f, f.inner.Limiter(r, burst)}
}

// askedFor is how many Takes the store got for key.
func (f *flakyStore) askedFor(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.asked[key]
}

// probes is how many Takes the store got for keys no caller uses, and
// the most of them that ran at once.
func (f *flakyStore) probes() (n, most int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, c := range f.asked {
		if !f.callers[k] {
			n += c
		}
	}
	return n, f.most
}

type flakyLimiter struct {
	f     *flakyStore
	inner limit.Limiter
}

func (l flakyLimiter) Take(ctx context.Context, tool, key string) (time.Duration, bool, error) {
	f := l.f
	f.mu.Lock()
	f.asked[key]++
	probe := !f.callers[key]
	if probe {
		f.running++
		f.most = max(f.most, f.running)
	}
	f.mu.Unlock()
	if probe {
		defer func() {
			f.mu.Lock()
			f.running--
			f.mu.Unlock()
		}()
	}
	if f.hung.Load() {
		<-ctx.Done()
		return 0, false, ctx.Err()
	}
	return l.inner.Take(ctx, tool, key)
}

// lockedLog is a text log safe for concurrent writes.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *lockedLog) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

// A store that timed out once is not asked again, and not waited for,
// until a probe in the background finds it answering: the calls between
// are decided by the local bucket at once, each handed to the hook, and
// the log says so once, then once more when the store is back, with
// how many calls were decided without it.
func TestSharedStopsWaitingForAStoreThatTimedOut(t *testing.T) {
	t.Parallel()
	store := newFlakyStore("alice", "bob")
	var log lockedLog
	var hooked atomic.Int64
	s := limit.NewShared(store, rate.Every(time.Hour), 1, limit.StoreOptions{
		Timeout: 10 * time.Millisecond, Logger: log.logger(),
		OnUnavailable: func(_ context.Context, err error) {
			if errors.Is(err, context.DeadlineExceeded) {
				hooked.Add(1)
			}
		},
	})
	ctx := context.Background()
	require.NoError(t, s.AllowCall(ctx, "", "alice", "shop_search"), "the store decides")

	store.hung.Store(true)
	allowed := 0
	for range 50 {
		if s.AllowCall(ctx, "", "bob", "shop_search") == nil {
			allowed++
		}
	}
	assert.Equal(t, 1, allowed, "bob's local bucket of one decides")
	assert.Equal(t, 1, store.askedFor("bob"), "after the first call timed out, no call waits for the store")
	assert.EqualValues(t, 50, hooked.Load(), "the hook counts each call decided without the store, with the store's error")
	assert.Equal(t, 1, strings.Count(log.String(), `msg="mcpguard: rate-limit store unavailable"`), "one record of the outage, not one per call:\n%s", log.String())
	assert.Contains(t, log.String(), `msg="mcpguard: rate-limit store unavailable" tool=shop_search outcome="allowed (local bucket)" error="context deadline exceeded"`)

	store.hung.Store(false)
	require.Eventually(t, func() bool {
		before := store.askedFor("alice")
		// alice's bucket in the store is empty; her local one is full.
		return s.AllowCall(ctx, "", "alice", "shop_search") != nil && store.askedFor("alice") > before
	}, 10*time.Second, time.Millisecond, "once a probe finds the store answering, it decides again")
	for i := range 5 {
		before := store.askedFor("alice")
		assert.Error(t, s.AllowCall(ctx, "", "alice", "shop_search"))
		assert.Equal(t, before+1, store.askedFor("alice"), "call %d is the store's", i)
	}
	probes, most := store.probes()
	assert.Positive(t, probes)
	assert.Equal(t, 1, most, "one probe at a time")
	back := regexp.MustCompile(`msg="mcpguard: rate-limit store available again" .*decided_without_store=(\d+)`).FindAllStringSubmatch(log.String(), -1)
	require.Len(t, back, 1, "one record when the store is back:\n%s", log.String())
	n, _ := strconv.Atoi(back[0][1])
	assert.GreaterOrEqual(t, n, 50, "it counts the calls decided without the store")
	assert.Equal(t, 1, strings.Count(log.String(), `msg="mcpguard: rate-limit store unavailable"`), log.String())
}

// allowStore allows every call, without allocating: a store that
// answers.
type allowStore struct{}

func (allowStore) Limiter(rate.Limit, int) limit.Limiter { return allowStore{} }
func (allowStore) Take(context.Context, string, string) (time.Duration, bool, error) {
	return 0, true, nil
}

// While the store answers, asking whether it is down costs an atomic
// load: an allowed call through a store that does not allocate does not
// allocate either.
func TestSharedAllowedCallsThroughAHealthyStoreDoNotAllocate(t *testing.T) {
	s := limit.NewShared(allowStore{}, 1, 1, limit.StoreOptions{Timeout: time.Hour})
	ctx := context.Background()
	_ = s.Allow(ctx, "", "alice")
	if n := testing.AllocsPerRun(1000, func() { _ = s.Allow(ctx, "", "alice") }); n != 0 {
		t.Errorf("%.0f allocations per allowed call, want 0", n)
	}
}
