package redisstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/rueidis"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/redisstore"
	"github.com/mcpguard/mcpguard/redisstore/redistest"
)

// shared is the Redis of the examples, started once by TestMain.
var shared *redistest.Server

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "redisstore")
	if err != nil {
		panic(err)
	}
	shared, err = redistest.Run(dir)
	if errors.Is(err, redistest.ErrNotInstalled) && !redistest.Required() {
		fmt.Println("redisstore: skipping every test:", err)
		_ = os.RemoveAll(dir)
		os.Exit(0)
	}
	if err != nil {
		panic(err)
	}
	code := m.Run()
	_ = shared.Stop()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// open opens a store on srv, closed when t ends.
func open(t *testing.T, srv *redistest.Server, opts ...redisstore.Option) *redisstore.Store {
	t.Helper()
	s, err := redisstore.Open(srv.URL(), opts...)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

// raw is a plain client on srv, to look at what the store wrote.
func raw(t *testing.T, srv *redistest.Server) rueidis.Client {
	t.Helper()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{srv.Addr}, DisableCache: true})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// render is what a front does with a limit's error: one envelope.
func render(err error) *envelope.Envelope {
	return envelope.NewRenderer().Error(context.Background(), envelope.Call{Tool: "shop_search"}, err)
}

// takes runs n decisions of lim for key and reports the verdicts.
func takes(t *testing.T, lim limit.Limiter, tool, key string, n int) (allowed int, lastWait time.Duration) {
	t.Helper()
	for range n {
		wait, ok, err := lim.Take(context.Background(), tool, key)
		require.NoError(t, err)
		if ok {
			allowed++
		} else {
			lastWait = wait
		}
	}
	return allowed, lastWait
}

func TestVerdictsAreThoseOfTheInProcessStore(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	for _, c := range []struct {
		r     rate.Limit
		burst int
	}{{rate.Every(time.Hour), 1}, {rate.Every(time.Minute), 3}, {0.5, 7}} {
		redisLim := open(t, srv).Limiter(c.r, c.burst)
		memLim := limit.MemoryStore(16).Limiter(c.r, c.burst)
		key := fmt.Sprintf("alice-%v-%d", float64(c.r), c.burst)
		gotR, waitR := takes(t, redisLim, "", key, c.burst+2)
		gotM, waitM := takes(t, memLim, "", key, c.burst+2)
		assert.Equal(t, c.burst, gotR, "Redis allows the burst, then refuses")
		assert.Equal(t, gotM, gotR, "as the in-process store does")
		interval := time.Duration(float64(time.Second) / float64(c.r))
		assert.InDelta(t, float64(waitM), float64(waitR), float64(time.Second), "the wait until the next token agrees")
		assert.LessOrEqual(t, waitR, interval)
		assert.Greater(t, waitR, interval-10*time.Second, "the wait is that of one token: %s of %s", waitR, interval)
	}
}

func TestBucketsAreApartByToolKeyAndPrefixAndSharedByReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	r, burst := rate.Every(time.Hour), 2
	a := open(t, srv).Limiter(r, burst)
	b := open(t, srv).Limiter(r, burst) // another replica: another process's client, same Redis
	other := open(t, srv, redisstore.WithPrefix("other-server:")).Limiter(r, burst)

	allowedA, _ := takes(t, a, "", "alice", 3)
	allowedB, _ := takes(t, b, "", "alice", 3)
	assert.Equal(t, 2, allowedA+allowedB, "two replicas share alice's bucket of 2")
	n, _ := takes(t, b, "", "bob", 3)
	assert.Equal(t, 2, n, "bob has his own")
	n, _ = takes(t, a, "shop_report", "alice", 3)
	assert.Equal(t, 2, n, "a tool has its own")
	n, _ = takes(t, other, "", "alice", 3)
	assert.Equal(t, 2, n, "another prefix, another server's buckets")
	// No split of the same bytes into tool and key names the same bucket.
	n, _ = takes(t, a, "ab", "c", 3)
	m, _ := takes(t, a, "a", "bc", 3)
	assert.Equal(t, 4, n+m)
}

func TestKeysAreBoundedAndExpireWhenTheBucketIsFullAgain(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := raw(t, srv)
	ctx := context.Background()
	hour := open(t, srv, redisstore.WithPrefix("hour:")).Limiter(rate.Every(time.Hour), 3)
	takes(t, hour, "", "alice", 1)
	takes(t, hour, "", strings.Repeat("k", 10_000), 1)
	keys, err := c.Do(ctx, c.B().Keys().Pattern("hour:*").Build()).AsStrSlice()
	require.NoError(t, err)
	require.Len(t, keys, 2)
	for _, k := range keys {
		assert.LessOrEqual(t, len(k), len("hour:")+66, "a key of 10,000 bytes is kept as its digest")
		ttl, err := c.Do(ctx, c.B().Pttl().Key(k).Build()).AsInt64()
		require.NoError(t, err)
		assert.Greater(t, ttl, int64(0), "every key expires")
		assert.LessOrEqual(t, ttl, time.Hour.Milliseconds(), "when one token is back, the bucket of 3 holds 2 again... and is full after an hour")
		mem, err := c.Do(ctx, c.B().MemoryUsage().Key(k).Build()).AsInt64()
		require.NoError(t, err)
		t.Logf("Redis memory of key %.20q: %d bytes", k, mem)
		assert.Less(t, mem, int64(200))
	}

	// Callers inventing keys at a fast rate leave nothing behind once
	// their buckets are full again (10 ms here).
	fast := open(t, srv, redisstore.WithPrefix("fast:")).Limiter(100, 1)
	for i := range 2_000 {
		takes(t, fast, "", fmt.Sprint("invented-", i), 1)
	}
	require.Eventually(t, func() bool {
		keys, err := c.Do(ctx, c.B().Keys().Pattern("fast:*").Build()).AsStrSlice()
		return err == nil && len(keys) == 0
	}, 20*time.Second, 20*time.Millisecond, "Redis expires the keys itself")
}

// undecided counts the calls a Shared decided without its store, and the
// last error.
type undecided struct {
	n    atomic.Int64
	mu   sync.Mutex
	last error
	log  lockedBuffer // the records of the limit's logger
}

// lockedBuffer is a log safe for concurrent writes: a limit logs from
// its probes' goroutines too.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *lockedBuffer) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Reset()
}

func (u *undecided) logger() *slog.Logger { return slog.New(slog.NewTextHandler(&u.log, nil)) }

func (u *undecided) hook(_ context.Context, err error) {
	u.n.Add(1)
	u.mu.Lock()
	u.last = err
	u.mu.Unlock()
}

func (u *undecided) err() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.last
}

// testTimeout bounds the store calls of the tests: the default few
// milliseconds are missed now and then on a loaded machine, which would
// decide calls without the store that a test expects the store to decide.
const testTimeout = 100 * time.Millisecond

// limits are a fail-open and a fail-closed limit of 1 call an hour on one
// store, counting their undecided calls and logging to their own logs. (The default, the local bucket,
// is TestAFloodCannotTurnTheLimitOff's.)
func limits(store limit.Store) (open, closed *limit.Shared, uo, uc *undecided) {
	uo, uc = &undecided{}, &undecided{}
	open = limit.NewShared(store, rate.Every(time.Hour), 1, limit.StoreOptions{Timeout: testTimeout, FailOpen: true, OnUnavailable: uo.hook, Logger: uo.logger()})
	closed = limit.NewShared(store, rate.Every(time.Hour), 1, limit.StoreOptions{Timeout: testTimeout, FailClosed: true, OnUnavailable: uc.hook, Logger: uc.logger()})
	return open, closed, uo, uc
}

// counted hands every Take on to its store and counts those of callers'
// buckets, not of the limits' probes.
type counted struct {
	limit.Store
	asked atomic.Int64
}

func (c *counted) Limiter(r rate.Limit, burst int) limit.Limiter {
	return countedLimiter{c, c.Store.Limiter(r, burst)}
}

type countedLimiter struct {
	c     *counted
	inner limit.Limiter
}

func (l countedLimiter) Take(ctx context.Context, tool, key string) (time.Duration, bool, error) {
	if key != limit.StoreProbeKey {
		l.c.asked.Add(1)
	}
	return l.inner.Take(ctx, tool, key)
}

// A hung Redis (SIGSTOP) holds one call per limit until its deadline:
// the calls after it are decided without asking Redis, each counted by
// the hook, and each limit logs the outage once. Once Redis answers a
// probe again, it decides again.
func TestAHungRedisIsWaitedForOnceThenProbed(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	store := &counted{Store: open(t, srv)}
	failOpen, failClosed, uo, uc := limits(store)
	ctx := context.Background()
	// The first calls dial and load the script, which on a loaded machine
	// can take longer than the deadline: once Redis answers in time, the
	// store decides (a bucket of one a call, refused the second time).
	require.Eventually(t, func() bool {
		uo.n.Store(0)
		key := fmt.Sprintf("alice-%d", time.Now().UnixNano())
		allowed, refused := failOpen.Allow(ctx, "", key) == nil, failOpen.Allow(ctx, "", key) != nil
		return allowed && refused && uo.n.Load() == 0 && failOpen.Allow(ctx, "", "alice") == nil
	}, 10*time.Second, 10*time.Millisecond, "the store decides while Redis answers")
	uo.log.Reset()

	require.NoError(t, srv.Pause())
	asked := store.asked.Load()
	for range 20 {
		assert.NoError(t, failOpen.Allow(ctx, "shop_search", "alice"), "fail open: a hung Redis allows")
		env := render(failClosed.Allow(ctx, "shop_search", "alice"))
		assert.Equal(t, envelope.ExecutionFailed, env.ErrorType)
		assert.True(t, env.Retryable)
		assert.Equal(t, limit.DefaultStoreRetryAfter.Milliseconds(), env.RetryAfterMS)
		assert.Contains(t, env.Message, "store is unavailable")
		assert.NotContains(t, env.Message, srv.Addr, "nothing about the store reaches the client")
	}
	assert.Equal(t, asked+2, store.asked.Load(), "one call of each limit waited for Redis; the 38 after it did not ask")
	assert.Equal(t, int64(20), uo.n.Load())
	assert.Equal(t, int64(20), uc.n.Load())
	assert.ErrorIs(t, uo.err(), context.DeadlineExceeded, "the store's error, at its deadline, not the client's")
	// One record of the outage per limit, not one per call.
	assert.Equal(t, 1, strings.Count(uo.log.String(), "\n"), uo.log.String())
	assert.Equal(t, 1, strings.Count(uo.log.String(), limit.StoreLogMessage+`" tool=shop_search outcome="allowed (fail open)" error="context deadline exceeded"`), uo.log.String())
	assert.Equal(t, 1, strings.Count(uc.log.String(), "\n"), uc.log.String())
	assert.Equal(t, 1, strings.Count(uc.log.String(), `outcome="refused (fail closed)"`), uc.log.String())

	require.NoError(t, srv.Resume())
	require.Eventually(t, func() bool {
		before := store.asked.Load()
		return failOpen.Allow(ctx, "", "alice") != nil && store.asked.Load() > before
	}, 10*time.Second, 10*time.Millisecond, "back from the hang, Redis decides again: alice's bucket is still empty")
	before := store.asked.Load()
	assert.Error(t, failOpen.Allow(ctx, "", "alice"))
	assert.Equal(t, before+1, store.asked.Load(), "each call asks Redis again")
	assert.Equal(t, 1, strings.Count(uo.log.String(), limit.StoreBackLogMessage), uo.log.String())
}

func TestAStoppedRedisIsDecidedWithoutAndUsedAgainWhenBack(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	store := open(t, srv)
	failOpen, failClosed, uo, uc := limits(store)
	ctx := context.Background()
	require.NoError(t, srv.Stop())
	for range 5 {
		assert.NoError(t, failOpen.Allow(ctx, "", "alice"))
		assert.Equal(t, envelope.ExecutionFailed, render(failClosed.Allow(ctx, "", "alice")).ErrorType)
	}
	assert.Equal(t, int64(5), uo.n.Load())
	assert.Equal(t, int64(5), uc.n.Load())

	require.NoError(t, srv.Restart())
	// Back, and empty: the first call is the store's, the second refused
	// by the store (fail open would allow it).
	require.Eventually(t, func() bool {
		return failClosed.Allow(ctx, "", "bob") == nil
	}, 10*time.Second, 10*time.Millisecond, "the store reconnects without a restart")
	env := render(failClosed.Allow(ctx, "", "bob"))
	assert.Contains(t, env.Message, "Rate limit reached")
	assert.Greater(t, env.RetryAfterMS, int64(59*60*1000))
}

func TestAnAnswerThatIsNoVerdictIsDecidedWithout(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := raw(t, srv)
	ctx := context.Background()
	failOpen, failClosed, uo, _ := limits(open(t, srv))
	// Something else owns alice's key: a list, not a number.
	require.NoError(t, c.Do(ctx, c.B().Lpush().Key(limit.StoreKey(redisstore.DefaultPrefix, "", "alice")).Element("x").Build()).Error())
	assert.NoError(t, failOpen.Allow(ctx, "", "alice"))
	assert.Equal(t, envelope.ExecutionFailed, render(failClosed.Allow(ctx, "", "alice")).ErrorType)
	assert.Equal(t, int64(1), uo.n.Load())
	assert.ErrorContains(t, uo.err(), "WRONGTYPE")

	// A script flushed from Redis is sent again.
	require.NoError(t, c.Do(ctx, c.B().ScriptFlush().Build()).Error())
	require.NoError(t, failClosed.Allow(ctx, "", "carol"))
	assert.Contains(t, render(failClosed.Allow(ctx, "", "carol")).Message, "Rate limit reached")
}

func TestAClientThatWentAwayIsNotAStoreFailure(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	failOpen, _, uo, _ := limits(open(t, srv))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, failOpen.Allow(ctx, "", "alice"), context.Canceled)
	assert.Zero(t, uo.n.Load())
}

func TestBadConfigurationPanics(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() { redisstore.New(nil) })
	assert.Panics(t, func() { redisstore.WithPrefix("") })
	s := open(t, shared)
	assert.Panics(t, func() { s.Limiter(0, 1) })
	assert.Panics(t, func() { s.Limiter(rate.Inf, 1) })
	assert.Panics(t, func() { s.Limiter(1, 0) })
	_, err := redisstore.Open("http://127.0.0.1:1")
	assert.Error(t, err)
}
