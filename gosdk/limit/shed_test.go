package limit_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	core "github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/core/seal"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
	"github.com/mcpguard/mcpguard/gosdk/limit"
)

// shedServer is a go-sdk server of tool behind gosdk.Middleware and its
// limit (limit.Rate(50, 5) by default), whose runs it stamps; resent counts the calls that
// echo a requestState, which it lets wait rtt first, as a network round
// trip would make them (outside the Middleware: on the wire).
type shedServer struct {
	limit   mcp.Middleware // limit.Rate(shedRate, shedBurst) when nil
	mu      sync.Mutex
	at      []time.Time
	resent  atomic.Int64
	arrived atomic.Int64
}

const shedRate, shedBurst = 50, 5

func (s *shedServer) serve(t *testing.T, rtt time.Duration, opts ...mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "0"}, nil)
	lim := s.limit
	if lim == nil {
		lim = limit.Rate(shedRate, shedBurst)
	}
	srv.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithLimits(lim)))
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			r, ok := req.(*mcp.CallToolRequest)
			if ok {
				s.arrived.Add(1)
			}
			if ok && r.Params.RequestState != "" {
				s.resent.Add(1)
				time.Sleep(rtt)
			}
			return next(ctx, method, req)
		}
	})
	srv.AddTool(&mcp.Tool{Name: tool, InputSchema: objectSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.mu.Lock()
		s.at = append(s.at, time.Now())
		s.mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	if len(opts) == 0 {
		return gosdktest.Connect(t, srv, gosdktest.AllowMiddlewareOutside()).ClientSession()
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "raw", Version: "0"}, &opts[0]).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs
}

// mostAllowed is the most runs mostInASecond may find behind a token
// bucket of rate r and burst b: b + r at the bucket, and the runs of
// r/10 seconds more, for the spread of the delays between the limit
// admitting a call and its handler stamping it (a scheduler on a machine
// busy with other tests: a run admitted early and stamped late moves
// into the next second's window). A limit that let calls through that it
// should shed or hold would show several times that.
func mostAllowed(r, b int) int { return b + r + r/10 + 1 }

// runs is how many times the handler ran.
func (s *shedServer) runs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.at)
}

// mostInASecond is the most runs within any second: a bucket of rate r
// and burst b lets at most b + r through.
func (s *shedServer) mostInASecond() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	most := 0
	for i := range s.at {
		k := 0
		for _, u := range s.at[i:] {
			if u.Sub(s.at[i]) < time.Second {
				k++
			}
		}
		most = max(most, k)
	}
	return most
}

// flood calls tool n times at once: refused counts the error results
// the caller saw, failed the calls that ended in an error (go-sdk's
// client ends a call so at its third load-shedding answer).
func flood(cs *mcp.ClientSession, n int, args map[string]any) (refused, failed int) {
	var r, f atomic.Int64
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
			switch {
			case err != nil:
				f.Add(1)
			case res.IsError:
				r.Add(1)
			}
		})
	}
	wg.Wait()
	return int(r.Load()), int(f.Load())
}

// TestRateShedsWhatItCannotHold: go-sdk v1.8.0's own client floods the
// go-sdk front with 40 calls more than the limit can take and hold (its
// burst and 128 held): each of those is answered with a load-shedding
// input_required, which the client re-sends by itself, at most twice,
// and never sees a third (which would end the call in an error). The
// re-send goes through the limit again: the handler never runs faster
// than the rate. Over a round trip of 100 ms, the time in which held
// calls leave, re-sends are held and run instead of refused; a re-send
// that arrives at once meets the same full bound and is refused, as
// before.
func TestRateShedsWhatItCannotHold(t *testing.T) {
	const beyond = 40
	n := shedBurst + core.HoldPerCaller + beyond
	for _, rtt := range []time.Duration{0, 100 * time.Millisecond} {
		t.Run(rtt.String(), func(t *testing.T) {
			s := &shedServer{}
			cs := s.serve(t, rtt)
			refused, failed := flood(cs, n, map[string]any{})
			t.Logf("round trip %s: %d calls, %d refused, %d failed, %d re-sent, most runs in a second %d",
				rtt, n, refused, failed, s.resent.Load(), s.mostInASecond())
			if failed != 0 {
				t.Errorf("%d calls failed: the client saw a third load-shedding answer", failed)
			}
			if s.resent.Load() == 0 {
				t.Errorf("no call was re-sent: none was shed")
			}
			if s.resent.Load() > 2*beyond+2 {
				t.Errorf("%d re-sends for %d calls beyond the bound", s.resent.Load(), beyond)
			}
			if rtt > 0 && refused > beyond-5 { // held calls leave at 50 a second: about 10 in two round trips
				t.Errorf("%d of %d refused over a %s round trip: the re-sends should have been held", refused, beyond, rtt)
			}
			if most := s.mostInASecond(); most > mostAllowed(shedRate, shedBurst) {
				t.Errorf("%d runs in a second: faster than the rate", most)
			}
		})
	}
}

// TestShedStateCannotBeReplayedPastTheLimit: a client that acts on load
// shedding itself (go-sdk's client with multi round-trip off) gets the
// shed answer as sent; an edited shed state, or one echoed with other
// arguments, is refused as every state is; a re-send is shed again while
// the hold bound is full, and its third round is the limit's refusal; a
// call carrying inputResponses is never shed; the shed state replayed 60
// times at once goes through the limit each time, and never runs the
// handler.
//
// The limit admits a call every 10 s and holds calls up to an hour: the
// burst runs, the next 128 calls fill the hold bound, and the bound frees
// its first place 10 s later, far beyond the steps below on the busiest
// machine. (At 50 a second, a place freed every 20 ms, and a busy machine
// often took longer than that between two steps.)
func TestShedStateCannotBeReplayedPastTheLimit(t *testing.T) {
	s := &shedServer{limit: limit.Rate(rate.Every(10*time.Second), shedBurst, limit.WithHoldCap(time.Hour))}
	cs := s.serve(t, 0, mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	args := map[string]any{"q": "shoes"}
	call := func(p *mcp.CallToolParams) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	// Fill the burst and the hold bound, and go 20 calls past it: the
	// first of those shed says the bound is full, and it stays so for
	// 10 s. The held calls end when the test does, as their client
	// cancels them.
	ctx, cancel := context.WithCancel(context.Background())
	var held sync.WaitGroup
	defer held.Wait()
	defer cancel()
	var shed atomic.Int64
	for range shedBurst + core.HoldPerCaller + 20 {
		held.Go(func() {
			if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args}); err == nil && res.NeedsInput() {
				shed.Add(1)
			}
		})
	}
	for shed.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	first := call(&mcp.CallToolParams{Name: tool, Arguments: args})
	if !first.NeedsInput() {
		t.Fatalf("a call past a full hold bound was not shed: %+v", first)
	}
	raw, _ := json.Marshal(first)
	if first.InputRequests == nil || len(first.InputRequests) != 0 || first.RequestState == "" || len(first.Content) != 0 {
		t.Fatalf("not a load-shedding answer: %s", raw)
	}

	edited := []byte(first.RequestState)
	edited[len(edited)/2] ^= 'A' ^ 'B'
	for name, p := range map[string]*mcp.CallToolParams{
		"edited":          {Name: tool, Arguments: args, RequestState: string(edited)},
		"other arguments": {Name: tool, Arguments: map[string]any{"q": "hats"}, RequestState: first.RequestState},
	} {
		res := call(p)
		if !res.IsError || !contains(res, seal.RefusedMessage) {
			t.Errorf("%s: not refused as a state that does not open: %+v", name, res)
		}
	}

	second := call(&mcp.CallToolParams{Name: tool, Arguments: args, RequestState: first.RequestState})
	if !second.NeedsInput() || second.RequestState == "" {
		t.Fatalf("a re-send that met a full hold bound was not shed again: %+v", second)
	}
	third := call(&mcp.CallToolParams{Name: tool, Arguments: args, RequestState: second.RequestState})
	if third.NeedsInput() || !third.IsError || !contains(third, "retry_after_ms") {
		t.Errorf("a third round was not the limit's refusal: %+v", third)
	}
	answered := call(&mcp.CallToolParams{Name: tool, Arguments: args, InputResponses: mcp.InputResponseMap{"x": &mcp.ElicitResult{Action: "accept"}}})
	if answered.NeedsInput() {
		t.Errorf("a call carrying inputResponses was shed: its answers would be lost")
	}

	var replays sync.WaitGroup
	for range 60 {
		replays.Go(func() { call(&mcp.CallToolParams{Name: tool, Arguments: args, RequestState: first.RequestState}) })
	}
	replays.Wait()
	if runs := s.runs(); runs != shedBurst {
		t.Errorf("the handler ran %d times, the limit admits %d (its burst) in the first 10 s: a replayed state ran past the limit", runs, shedBurst)
	}
}

// contains reports whether res's text holds s.
func contains(res *mcp.CallToolResult, s string) bool {
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok && strings.Contains(tc.Text, s) {
			return true
		}
	}
	return false
}
