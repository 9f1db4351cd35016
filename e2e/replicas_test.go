package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/redis/rueidis"

	corelimit "github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/redisstore/redistest"
)

// The replicas' limit: -rate 10 -rate-key global, one bucket of 10 calls
// per second in bursts of 10 for every caller of every replica. The rate
// is well below what the replicas serve even race-built on a loaded
// 2-core machine (about 45 calls/s there, 400 without -race), so that the
// limit decides on any machine, and the in-process control exceeds it.
const (
	replicaRate  = 10
	replicaBurst = 10
	// Every client makes this many calls, round-robin over the replicas:
	// far more than the allowance, so that the limit decides.
	replicaClients, replicaCallsEach = 50, 10
	// The store timeout of the replicas: the default few milliseconds are
	// missed on a loaded CI machine (race-built servers, 50 clients, two
	// cores), and a call decided without the store, fail open, is one the
	// bucket did not count. A missed deadline is another test's subject.
	replicaStoreTimeout = "1s"
)

// replicaTally is what the clients got back.
type replicaTally struct {
	accepted, refused, rpcErrors, wrong atomic.Int64
	// before and after the event of the halfway test
	acceptedAfter, refusedAfter atomic.Int64
	firstProblem                atomic.Pointer[string]
}

func (r *replicaTally) problem(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.firstProblem.CompareAndSwap(nil, &msg)
}

func (r *replicaTally) String() string {
	p := r.firstProblem.Load()
	if p == nil {
		p = new(string)
	}
	return fmt.Sprintf("%d accepted, %d refused, %d JSON-RPC errors, %d other answers (first: %s)",
		r.accepted.Load(), r.refused.Load(), r.rpcErrors.Load(), r.wrong.Load(), *p)
}

// startReplicas starts n shop-servers with args, -stats and -rate-hold 0:
// these tests are of one bucket shared through Redis, and of refusals; a
// client on MCP 2026-07-28 (the mcp-go front's here) would otherwise be
// held until a token came, every call accepted at the rate over tens of
// seconds (holding with a store is redisstore's replica test's subject).
func startReplicas(t *testing.T, f front, n int, args ...string) []*process {
	t.Helper()
	ls := make([]*launching, n)
	for i := range ls {
		ls[i] = launchHTTP(t, shopServer(t), append(append([]string{"-stats", "-rate-hold", "0"}, f.args...), args...)...)
	}
	ps := make([]*process, n)
	for i, l := range ls {
		ps[i] = l.wait(t)
	}
	return ps
}

// driveReplicas has clients call shop_get_schema callsEach times, each
// call on the next replica, and tallies the answers. halfway, if not nil,
// runs once half of all calls were answered; answers after it are also
// counted apart.
func driveReplicas(t *testing.T, ctx context.Context, f front, ps []*process, clients, callsEach int, halfway func()) *replicaTally {
	t.Helper()
	tally := &replicaTally{}
	var done atomic.Int64
	var once sync.Once
	var after atomic.Bool
	total := int64(clients * callsEach)
	var wg sync.WaitGroup
	var all []*client.Client
	for w := range clients {
		cs := make([]*client.Client, len(ps))
		for i, p := range ps {
			cs[i] = connectReplica(t, ctx, f, p.url, w)
		}
		all = append(all, cs...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range callsEach {
				c := cs[(w+i)%len(cs)]
				wasAfter := after.Load()
				tallyCall(ctx, c, tally, wasAfter)
				if done.Add(1) == total/2 && halfway != nil {
					once.Do(func() { halfway(); after.Store(true) })
				}
			}
		}()
	}
	wg.Wait()
	// The clients end their sessions now, so that the replicas' graceful
	// shutdown has no open stream to wait for.
	for _, c := range all {
		_ = c.Close()
	}
	return tally
}

func connectReplica(t *testing.T, ctx context.Context, f front, url string, w int) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = f.protocol
	init.Params.ClientInfo = mcp.Implementation{Name: fmt.Sprintf("replica-client-%d", w), Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize client %d at %s: %v", w, url, err)
	}
	return c
}

// tallyCall makes one call and counts its answer: a success, or a
// refusal, which must be an execution_failed envelope with
// retry_after_ms.
func tallyCall(ctx context.Context, c *client.Client, tally *replicaTally, after bool) {
	req := mcp.CallToolRequest{}
	req.Params.Name = "shop_get_schema"
	res, err := c.CallTool(ctx, req)
	switch {
	case err != nil:
		tally.rpcErrors.Add(1)
		tally.problem("JSON-RPC error: %v", err)
	case !res.IsError:
		tally.accepted.Add(1)
		if after {
			tally.acceptedAfter.Add(1)
		}
	default:
		env, ok := envelope.FromResult(res)
		if !ok || env.ErrorType != envelope.ExecutionFailed || !env.Retryable || env.RetryAfterMS <= 0 {
			tally.wrong.Add(1)
			tally.problem("want a refusal with retry_after_ms, got %+v", res.Content)
			return
		}
		tally.refused.Add(1)
		if after {
			tally.refusedAfter.Add(1)
		}
	}
}

// stopReplicas stops the replicas and checks that none leaves a goroutine
// behind.
func stopReplicas(t *testing.T, ps []*process) {
	t.Helper()
	for i, p := range ps {
		if s := stopAndStats(t, p); s.GoroutinesEnd > s.GoroutinesStart {
			t.Errorf("replica %d: %d goroutines after shutdown, %d before serving", i, s.GoroutinesEnd, s.GoroutinesStart)
		}
	}
}

// TestReplicasShareOneRateLimit: 3 replicas of the shop on one Redis,
// -rate 10 -rate-key global, and 50 clients spreading 500 calls over
// them round-robin. The calls accepted stay within what one bucket
// allows in the time they took: the burst plus the rate times the
// elapsed time, plus 1 for rounding (Redis's clock decides for every
// replica, so there is no skew between processes to allow for). Every
// refusal is an envelope with retry_after_ms; no JSON-RPC errors. The
// same replicas with their buckets in process memory accept more than
// that: the failure this store exists to prevent.
func TestReplicasShareOneRateLimit(t *testing.T) {
	forEachFront(t, func(t *testing.T, f front) {
		srv := redistest.Start(t)
		ctx := withTimeout(t, 8*time.Minute) // a hang guard
		limitArgs := []string{"-rate", fmt.Sprint(replicaRate), "-rate-key", "global"}
		ps := startReplicas(t, f, 3, append(limitArgs, "-rate-store", srv.URL(), "-rate-store-timeout", replicaStoreTimeout)...)
		start := time.Now()
		tally := driveReplicas(t, ctx, f, ps, replicaClients, replicaCallsEach, nil)
		elapsed := time.Since(start)
		allowance := replicaBurst + int64(replicaRate*elapsed.Seconds()) + 1
		calls := int64(replicaClients * replicaCallsEach)
		if got := tally.accepted.Load() + tally.refused.Load(); got != calls || tally.rpcErrors.Load() != 0 || tally.wrong.Load() != 0 {
			t.Fatalf("want %d calls answered, each accepted or refused with an envelope: %s", calls, tally)
		}
		if tally.accepted.Load() > allowance || tally.accepted.Load() < replicaBurst {
			t.Errorf("3 replicas accepted %d calls in %v; one bucket allows %d (burst %d + %d/s)", tally.accepted.Load(), elapsed, allowance, replicaBurst, replicaRate)
		}
		t.Logf("%s: 3 replicas, %d clients, %d calls in %v (%.0f decisions/s on one Redis): %d accepted of %d allowed, %d refused with retry_after_ms; race=%v",
			f.name, replicaClients, calls, elapsed.Round(time.Millisecond), float64(calls)/elapsed.Seconds(), tally.accepted.Load(), allowance, tally.refused.Load(), raceEnabled)
		logRedisCost(t, srv)
		stopReplicas(t, ps)

		// The control: the same replicas and load, buckets in process.
		ps = startReplicas(t, f, 3, limitArgs...)
		start = time.Now()
		control := driveReplicas(t, ctx, f, ps, replicaClients, replicaCallsEach, nil)
		elapsed = time.Since(start)
		allowance = replicaBurst + int64(replicaRate*elapsed.Seconds()) + 1
		if control.accepted.Load() <= allowance {
			t.Errorf("in process, 3 replicas accepted %d calls in %v, within one bucket's %d: the test cannot tell a shared store from none", control.accepted.Load(), elapsed, allowance)
		}
		t.Logf("%s control, buckets in process: %d accepted in %v, one bucket allows %d", f.name, control.accepted.Load(), elapsed.Round(time.Millisecond), allowance)
		stopReplicas(t, ps)
	})
}

// logRedisCost reports what the decisions cost Redis itself.
func logRedisCost(t *testing.T, srv *redistest.Server) {
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{srv.Addr}, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	info, err := c.Do(context.Background(), c.B().Info().Section("commandstats").Build()).ToString()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if strings.HasPrefix(line, "cmdstat_evalsha:") || strings.HasPrefix(line, "cmdstat_eval:") {
			t.Logf("Redis: %s", strings.TrimSpace(line))
		}
	}
}

// TestReplicasWithRedisStoppedHalfway: the same load, Redis stopped once
// half the calls are answered. Replicas deciding by their local buckets
// (the default) accept, after, no more than their three buckets allow;
// replicas failing open serve every call after; replicas failing closed
// accept no more than their local buckets allow in the second before
// Redis counts as down, and refuse the rest with an envelope with
// retry_after_ms. Either way every call is answered, none with a
// JSON-RPC error, and no replica leaves a goroutine behind.
func TestReplicasWithRedisStoppedHalfway(t *testing.T) {
	forEachFront(t, func(t *testing.T, f front) {
		for _, mode := range []string{"local bucket", "fail open", "fail closed"} {
			srv := redistest.Start(t)
			ctx := withTimeout(t, 8*time.Minute) // a hang guard
			args := []string{"-rate", fmt.Sprint(replicaRate), "-rate-key", "global", "-rate-store", srv.URL(), "-rate-store-timeout", replicaStoreTimeout}
			switch mode {
			case "fail closed":
				args = append(args, "-rate-fail-closed")
			case "fail open":
				args = append(args, "-rate-fail-open")
			}
			ps := startReplicas(t, f, 3, args...)
			start := time.Now()
			tally := driveReplicas(t, ctx, f, ps, replicaClients, replicaCallsEach, func() {
				if err := srv.Stop(); err != nil {
					t.Error(err)
				}
			})
			elapsed := time.Since(start)
			calls := int64(replicaClients * replicaCallsEach)
			if got := tally.accepted.Load() + tally.refused.Load(); got != calls || tally.rpcErrors.Load() != 0 || tally.wrong.Load() != 0 {
				t.Fatalf("%s: want %d calls answered, each accepted or refused with an envelope: %s", mode, calls, tally)
			}
			// A call a client started after Redis stopped finds no store.
			local := 3 * (replicaBurst + int64(replicaRate*elapsed.Seconds()) + 1)                      // three local buckets
			downAfter := 3 * (replicaBurst + int64(replicaRate*corelimit.StoreDownAfter.Seconds()) + 1) // the same, until Redis counts as down
			switch after := tally.acceptedAfter.Load() + tally.refusedAfter.Load(); {
			case after == 0:
				t.Errorf("%s: no call was made after Redis stopped", mode)
			case mode == "local bucket" && tally.acceptedAfter.Load() > local:
				t.Errorf("local bucket: %d of the %d calls after Redis stopped were accepted; three local buckets allow %d in %s", tally.acceptedAfter.Load(), after, local, elapsed)
			case mode == "fail open" && tally.refusedAfter.Load() != 0:
				t.Errorf("fail open: %d of the %d calls after Redis stopped were refused", tally.refusedAfter.Load(), after)
			case mode == "fail closed" && tally.acceptedAfter.Load() > downAfter:
				t.Errorf("fail closed: %d of the %d calls after Redis stopped were accepted; the local buckets allow %d before Redis counts as down", tally.acceptedAfter.Load(), after, downAfter)
			}
			t.Logf("%s, %s: %s; after Redis stopped: %d accepted, %d refused", f.name, mode, tally, tally.acceptedAfter.Load(), tally.refusedAfter.Load())
			stopReplicas(t, ps)
		}
	})
}
