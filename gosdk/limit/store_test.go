package limit_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	corelimit "github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/limit"
)

// hungStore is a store that never answers: each Take waits for its
// context's deadline, as a call to a hung Redis does. deadlines counts
// the Takes of callers' buckets, not of the limit's probes.
type hungStore struct{ deadlines atomic.Int64 }

func (h *hungStore) Limiter(rate.Limit, int) limit.Limiter { return h }

func (h *hungStore) Take(ctx context.Context, _, key string) (time.Duration, bool, error) {
	if _, ok := ctx.Deadline(); ok && key != corelimit.StoreProbeKey {
		h.deadlines.Add(1)
	}
	<-ctx.Done()
	return 0, false, ctx.Err()
}

// seenStore is the in-process store, recording the tool and key of each
// call.
type seenStore struct {
	mu    sync.Mutex
	seen  []string
	inner limit.Store
}

func (s *seenStore) Limiter(r rate.Limit, burst int) limit.Limiter {
	return seenLimiter{s, s.inner.Limiter(r, burst)}
}

type seenLimiter struct {
	s     *seenStore
	inner limit.Limiter
}

func (l seenLimiter) Take(ctx context.Context, tool, key string) (time.Duration, bool, error) {
	l.s.mu.Lock()
	l.s.seen = append(l.s.seen, tool+"|"+key)
	l.s.mu.Unlock()
	return l.inner.Take(ctx, tool, key)
}

// lockedBuffer is a log destination safe for concurrent writes.
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

// A hung store's calls are decided by the local bucket of their key by
// default, allowed with WithFailOpen, refused with WithFailClosed; only
// the first call waits for the store, and only it is logged, naming the
// tool, though the buckets are every tool's.
func TestRateWithAHungStoreDecidesLocallyOrFailsOpenOrClosed(t *testing.T) {
	t.Parallel()
	var calls, undecided atomic.Int64
	counting := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls.Add(1)
		return ok(ctx, req)
	}
	var log lockedBuffer
	store := &hungStore{}
	local := serve(t, counting, []mcp.Middleware{limit.Rate(rate.Every(time.Hour), 1,
		limit.WithStore(store), limit.WithStoreTimeout(time.Millisecond), limit.WithLogger(slog.New(slog.NewTextHandler(&log, nil))),
		limit.WithOnStoreUnavailable(func(context.Context, error) { undecided.Add(1) }))})
	local.Call(tool, nil).ExpectSuccess()
	local.Call(tool, nil).ExpectError(gosdk.ExecutionFailed).ExpectMessage("from all callers together")
	if n, d, u := calls.Load(), store.deadlines.Load(), undecided.Load(); n != 1 || d != 1 || u != 2 {
		t.Fatalf("local bucket: %d calls served, %d store calls with a deadline, %d counted undecided; want 1, 1, 2", n, d, u)
	}
	if n := strings.Count(log.String(), `tool=shop_search outcome="allowed (local bucket)" error="context deadline exceeded"`); n != 1 {
		t.Fatalf("want 1 record of the outage, got %d:\n%s", n, log.String())
	}
	if n := strings.Count(log.String(), "\n"); n != 1 {
		t.Fatalf("want 1 record, not one per call, got %d:\n%s", n, log.String())
	}

	open := serve(t, counting, []mcp.Middleware{limit.Rate(rate.Every(time.Hour), 1,
		limit.WithStore(store), limit.WithFailOpen(), limit.WithStoreTimeout(time.Millisecond), limit.WithLogger(slog.New(slog.DiscardHandler)))})
	for range 3 {
		open.Call(tool, nil).ExpectSuccess()
	}
	if n := calls.Load(); n != 4 {
		t.Fatalf("fail open: %d calls served in all, want 4", n)
	}

	closed := serve(t, counting, []mcp.Middleware{limit.Rate(rate.Every(time.Hour), 1,
		limit.WithStore(store), limit.WithFailClosed(), limit.WithStoreTimeout(time.Millisecond),
		limit.WithLogger(slog.New(slog.DiscardHandler)))})
	r := closed.Call(tool, nil).ExpectError(gosdk.ExecutionFailed).
		ExpectMessage("store is unavailable").ExpectNextStep("Wait 1000 ms").NoLeak()
	if r.Envelope == nil || !r.Envelope.Retryable || r.Envelope.RetryAfterMS != 1000 {
		t.Fatalf("want retryable with retry_after_ms 1000: %s", r.Raw)
	}
	if n := calls.Load(); n != 4 {
		t.Fatalf("a call refused fail closed reached the handler")
	}
}

func TestRateAsksTheStoreForTheKeyAndTool(t *testing.T) {
	t.Parallel()
	store := &seenStore{inner: limit.MemoryStore(16)}
	byUser := func(context.Context, *mcp.CallToolRequest) string { return "alice" }
	c := serve(t, ok, []mcp.Middleware{limit.Rate(rate.Every(time.Hour), 1,
		limit.WithStore(store), limit.WithKey(byUser), limit.WithPerTool())})
	c.ListTools() // the tool is known: it gets its own bucket
	c.Call(tool, nil).ExpectSuccess()
	c.Call(tool, nil).ExpectError(gosdk.ExecutionFailed).ExpectMessage("Rate limit reached")
	store.mu.Lock()
	defer store.mu.Unlock()
	if got := strings.Join(store.seen, ","); got != "shop_search|alice,shop_search|alice" {
		t.Fatalf("the store was asked for %s", got)
	}
}

func TestStoreOptionsPanicOnBadConfiguration(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]func(){
		"nil store":   func() { limit.WithStore(nil) },
		"no timeout":  func() { limit.WithStoreTimeout(0) },
		"nil hook":    func() { limit.WithOnStoreUnavailable(nil) },
		"no key room": func() { limit.MemoryStore(0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
