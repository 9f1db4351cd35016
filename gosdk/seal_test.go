package gosdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/seal"
	"github.com/mcpguard/mcpguard/gosdk"
)

// stateServer is a real go-sdk server behind gosdk.Middleware whose tools
// ask for confirmation first (input_required, requestState
// "env=<environment>") and, on the retry, report the state they received.
type stateServer struct {
	s    *mcp.Server
	mu   sync.Mutex
	logs bytes.Buffer
	got  []string
}

func (ss *stateServer) Write(p []byte) (int, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.logs.Write(p)
}

func newStateServer(t *testing.T, opts ...gosdk.Option) *stateServer {
	t.Helper()
	ss := &stateServer{}
	logger := slog.New(slog.NewJSONHandler(ss, nil))
	ss.s = mcp.NewServer(&mcp.Implementation{Name: "state", Version: "0"}, nil)
	h := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if st := req.Params.RequestState; st != "" {
			ss.mu.Lock()
			ss.got = append(ss.got, st)
			ss.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done with " + st}}}, nil
		}
		var args struct{ Environment string }
		_ = json.Unmarshal(req.Params.Arguments, &args)
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Mode: "form", Message: "sure?", RequestedSchema: objectSchema}},
			RequestState:  "env=" + args.Environment,
		}, nil
	}
	for _, name := range []string{"deploy", "delete"} {
		ss.s.AddTool(&mcp.Tool{Name: name, InputSchema: objectSchema}, h)
	}
	gosdk.Install(ss.s, append([]gosdk.Option{gosdk.WithLogger(logger)}, opts...)...)
	return ss
}

// connect returns a go-sdk client session; with auto, the client's own
// multi round-trip loop answers the elicitation and retries.
func (ss *stateServer) connect(t *testing.T, auto bool) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	srv, err := ss.s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: !auto},
	})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func stateCall(t *testing.T, cs *mcp.ClientSession, tool, env, state string) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"environment": env}}
	if state != "" {
		p.RequestState = state
		p.InputResponses = mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}}
	}
	res, err := cs.CallTool(context.Background(), p)
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	return res
}

func stateStart(t *testing.T, cs *mcp.ClientSession, tool, env string) string {
	t.Helper()
	res := stateCall(t, cs, tool, env, "")
	if !res.NeedsInput() || res.RequestState == "" {
		t.Fatalf("first call: %+v", res)
	}
	return res.RequestState
}

func (ss *stateServer) received() []string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return append([]string(nil), ss.got...)
}

func (ss *stateServer) expectRefused(t *testing.T, res *mcp.CallToolResult, reason error) {
	t.Helper()
	wire, _ := json.Marshal(res)
	if !res.IsError || !strings.Contains(string(wire), `\"error_type\":\"validation_error\"`) || !strings.Contains(string(wire), seal.RefusedMessage) {
		t.Errorf("the client got %s, want the refusal envelope", wire)
	}
	if strings.Contains(string(wire), reason.Error()) {
		t.Errorf("the client learns the reason: %s", wire)
	}
	if got := ss.received(); len(got) > 0 {
		t.Errorf("the handler ran with %q", got)
	}
	ss.mu.Lock()
	logs := ss.logs.String()
	ss.mu.Unlock()
	if !strings.Contains(logs, seal.LogMessage) || !strings.Contains(logs, reason.Error()) {
		t.Errorf("the log lacks the reason %q:\n%s", reason, logs)
	}
}

func TestSealedStateWithTheSDKClient(t *testing.T) {
	t.Parallel()
	ss := newStateServer(t)
	// go-sdk's own client runs the round trips: the state reaches the
	// handler as the handler wrote it.
	res := stateCall(t, ss.connect(t, true), "deploy", "staging", "")
	if res.IsError || res.NeedsInput() {
		t.Fatalf("result: %+v", res)
	}
	if got := ss.received(); len(got) != 1 || got[0] != "env=staging" {
		t.Fatalf("the handler received %q", got)
	}
	state := stateStart(t, ss.connect(t, false), "deploy", "staging")
	if strings.Contains(state, "staging") {
		t.Fatalf("the client sees the plaintext: %s", state)
	}
}

func TestSealedStateRefused(t *testing.T) {
	t.Parallel()
	other := newStateServer(t)
	for _, tc := range []struct {
		name   string
		replay func(t *testing.T, cs *mcp.ClientSession, state string) *mcp.CallToolResult
		reason error
	}{
		{"edited", func(t *testing.T, cs *mcp.ClientSession, state string) *mcp.CallToolResult {
			b := []byte(state)
			b[len(b)/2] ^= 0x20 // a letter's case
			if b[len(b)/2] < 'A' {
				b[len(b)/2] = 'x'
			}
			return stateCall(t, cs, "deploy", "staging", string(b))
		}, seal.ErrTampered},
		{"forged plaintext", func(t *testing.T, cs *mcp.ClientSession, _ string) *mcp.CallToolResult {
			return stateCall(t, cs, "deploy", "staging", "env=production")
		}, seal.ErrTampered},
		{"another tool", func(t *testing.T, cs *mcp.ClientSession, state string) *mcp.CallToolResult {
			return stateCall(t, cs, "delete", "staging", state)
		}, seal.ErrBinding},
		{"other arguments", func(t *testing.T, cs *mcp.ClientSession, state string) *mcp.CallToolResult {
			return stateCall(t, cs, "deploy", "production", state)
		}, seal.ErrBinding},
		// The base64 decoder skips line breaks: a state of nothing else
		// decoded to nothing, and Open panicked, which ends a go-sdk server.
		{"line breaks only", func(t *testing.T, cs *mcp.ClientSession, state string) *mcp.CallToolResult {
			return stateCall(t, cs, "deploy", "staging", strings.Repeat("\n", len(state)))
		}, seal.ErrTampered},
		{"a line break inside", func(t *testing.T, cs *mcp.ClientSession, state string) *mcp.CallToolResult {
			return stateCall(t, cs, "deploy", "staging", state[:8]+"\r\n"+state[8:])
		}, seal.ErrTampered},
		{"another server's key", func(t *testing.T, cs *mcp.ClientSession, _ string) *mcp.CallToolResult {
			return stateCall(t, cs, "deploy", "staging", stateStart(t, other.connect(t, false), "deploy", "staging"))
		}, seal.ErrUnknownKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ss := newStateServer(t)
			cs := ss.connect(t, false)
			ss.expectRefused(t, tc.replay(t, cs, stateStart(t, cs, "deploy", "staging")), tc.reason)
		})
	}
}

func TestSealedStateExpires(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	ss := newStateServer(t, gosdk.WithStateKeys(stateRing(t, "k1:"+strings.Repeat("A", 43)), seal.WithTTL(time.Minute), seal.WithClock(clock)))
	cs := ss.connect(t, false)
	state := stateStart(t, cs, "deploy", "staging")
	mu.Lock()
	now = now.Add(time.Minute + time.Second)
	mu.Unlock()
	ss.expectRefused(t, stateCall(t, cs, "deploy", "staging", state), seal.ErrExpired)
}

func stateRing(t *testing.T, text string) *seal.KeyRing {
	t.Helper()
	r, err := seal.ParseKeyRing([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSealedStateAcrossReplicasAndRotation(t *testing.T) {
	t.Parallel()
	k1 := "k1:" + strings.Repeat("A", 43)
	k2 := "k2:" + strings.Repeat("B", 43)
	a := newStateServer(t, gosdk.WithStateKeys(stateRing(t, k1)))
	b := newStateServer(t, gosdk.WithStateKeys(stateRing(t, k1)))
	acs := a.connect(t, false)
	stateCall(t, b.connect(t, false), "deploy", "staging", stateStart(t, acs, "deploy", "staging"))
	if got := b.received(); len(got) != 1 || got[0] != "env=staging" {
		t.Fatalf("another replica received %q", got)
	}
	rotated := newStateServer(t, gosdk.WithStateKeys(stateRing(t, k2+"\n"+k1)))
	rcs := rotated.connect(t, false)
	stateCall(t, rcs, "deploy", "staging", stateStart(t, acs, "deploy", "staging"))
	if got := rotated.received(); len(got) != 1 || got[0] != "env=staging" {
		t.Fatalf("the old key does not open: %q", got)
	}
	a.expectRefused(t, stateCall(t, acs, "deploy", "staging", stateStart(t, rcs, "deploy", "staging")), seal.ErrUnknownKey)
}

func TestWithoutStateSealing(t *testing.T) {
	t.Parallel()
	ss := newStateServer(t, gosdk.WithoutStateSealing())
	cs := ss.connect(t, false)
	if st := stateStart(t, cs, "deploy", "staging"); st != "env=staging" {
		t.Fatalf("state %q", st)
	}
	stateCall(t, cs, "deploy", "staging", "env=production")
	if got := ss.received(); len(got) != 1 || got[0] != "env=production" {
		t.Fatalf("received %q", got)
	}
}
