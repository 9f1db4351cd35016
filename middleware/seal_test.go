package middleware_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/seal"
	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
)

// stateServer is a real mcp-go server behind middleware.Default whose
// tools ask for confirmation first (input_required, requestState
// "env=<environment>") and, on the retry, report the state they received.
type stateServer struct {
	s    *server.MCPServer
	logs *bytes.Buffer
	mu   sync.Mutex
	got  []string // the requestState each retry's handler received
}

func newStateServer(t *testing.T, opts ...middleware.Option) *stateServer {
	t.Helper()
	return newStateServerUsing(t, func(logger *slog.Logger) []server.ToolHandlerMiddleware {
		return middleware.Default(append([]middleware.Option{middleware.WithLogger(logger)}, opts...)...)
	})
}

// newStateServerUsing is newStateServer with the layers layers gives,
// logging to the server's log.
func newStateServerUsing(t *testing.T, layers func(*slog.Logger) []server.ToolHandlerMiddleware) *stateServer {
	t.Helper()
	ss := &stateServer{logs: &bytes.Buffer{}}
	logger := slog.New(slog.NewJSONHandler(lockedWriter{&ss.mu, ss.logs}, nil))
	ss.s = server.NewMCPServer("state", "1.0.0", server.WithToolCapabilities(false))
	ss.s.Use(layers(logger)...)
	h := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.RequestState != "" {
			ss.mu.Lock()
			ss.got = append(ss.got, req.Params.RequestState)
			ss.mu.Unlock()
			return mcp.NewToolResultText("done with " + req.Params.RequestState), nil
		}
		return server.NewInputRequestBuilder("env="+req.GetString("environment", "")).
			Elicit("confirm", mcp.ElicitationParams{Mode: mcp.ElicitationModeForm, Message: "sure?",
				RequestedSchema: map[string]any{"type": "object"}}).
			ToolResult(), nil
	}
	for _, name := range []string{"deploy", "delete"} {
		ss.s.AddTool(mcp.NewTool(name, mcp.WithString("environment")), h)
	}
	return ss
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// call sends a 2026-07-28 tools/call through HandleMessage and returns
// the JSON-RPC result member the client receives.
func (ss *stateServer) call(t *testing.T, tool, env, state string) map[string]any {
	t.Helper()
	return ss.callAs(context.Background(), t, tool, env, state)
}

func (ss *stateServer) callAs(ctx context.Context, t *testing.T, tool, env, state string) map[string]any {
	t.Helper()
	params := map[string]any{
		"name":      tool,
		"arguments": map[string]any{"environment": env},
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
		},
	}
	if state != "" {
		params["requestState"] = state
		params["inputResponses"] = map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{}}}
	}
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	require.NoError(t, err)
	out, err := json.Marshal(ss.s.HandleMessage(ctx, msg))
	require.NoError(t, err)
	var resp struct {
		Result map[string]any `json:"result"`
		Error  any            `json:"error"`
	}
	require.NoError(t, json.Unmarshal(out, &resp), "%s", out)
	require.Nil(t, resp.Error, "%s", out)
	return resp.Result
}

// start makes the first call and returns the requestState the client got.
func (ss *stateServer) start(t *testing.T, tool, env string) string {
	t.Helper()
	res := ss.call(t, tool, env, "")
	require.Equal(t, "input_required", res["resultType"], "%v", res)
	state, _ := res["requestState"].(string)
	require.NotEmpty(t, state)
	return state
}

func (ss *stateServer) received() []string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return append([]string(nil), ss.got...)
}

// expectRefused checks that the client got the one refusal envelope and
// nothing of the reason, that the handler did not run, and that the
// server's log holds the reason.
func (ss *stateServer) expectRefused(t *testing.T, res map[string]any, reason error) {
	t.Helper()
	assert.Equal(t, true, res["isError"], "%v", res)
	text, _ := json.Marshal(res)
	assert.Contains(t, string(text), `"error_type":"validation_error"`)
	assert.Contains(t, string(text), seal.RefusedMessage)
	assert.NotContains(t, string(text), reason.Error())
	assert.Empty(t, ss.received(), "the handler ran with a state that did not open")
	ss.mu.Lock()
	logs := ss.logs.String()
	ss.mu.Unlock()
	assert.Contains(t, logs, seal.LogMessage)
	assert.Contains(t, logs, reason.Error())
}

func TestSealedStateRoundTrip(t *testing.T) {
	t.Parallel()
	ss := newStateServer(t)
	state := ss.start(t, "deploy", "staging")
	assert.NotContains(t, state, "staging", "the client sees the plaintext state")
	res := ss.call(t, "deploy", "staging", state)
	assert.Nil(t, res["isError"], "%v", res)
	assert.Equal(t, []string{"env=staging"}, ss.received())
	// A retry of the same call within the TTL opens again.
	ss.call(t, "deploy", "staging", state)
	assert.Equal(t, []string{"env=staging", "env=staging"}, ss.received())
}

func TestSealedStateRefused(t *testing.T) {
	t.Parallel()
	flip := func(s string) string {
		b := []byte(s)
		i := len(b) / 2
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	for _, tc := range []struct {
		name   string
		replay func(t *testing.T, ss *stateServer, state string) map[string]any
		reason error
	}{
		{"edited", func(t *testing.T, ss *stateServer, state string) map[string]any {
			return ss.call(t, "deploy", "staging", flip(state))
		}, seal.ErrTampered},
		{"forged plaintext", func(t *testing.T, ss *stateServer, _ string) map[string]any {
			return ss.call(t, "deploy", "staging", "env=production")
		}, seal.ErrTampered},
		{"another tool", func(t *testing.T, ss *stateServer, state string) map[string]any {
			return ss.call(t, "delete", "staging", state)
		}, seal.ErrBinding},
		{"other arguments", func(t *testing.T, ss *stateServer, state string) map[string]any {
			return ss.call(t, "deploy", "production", state)
		}, seal.ErrBinding},
		{"another server's key", func(t *testing.T, ss *stateServer, _ string) map[string]any {
			// Another server's per-process key: its id is its own.
			return ss.call(t, "deploy", "staging", newStateServer(t).start(t, "deploy", "staging"))
		}, seal.ErrUnknownKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ss := newStateServer(t)
			state := ss.start(t, "deploy", "staging")
			ss.expectRefused(t, tc.replay(t, ss, state), tc.reason)
		})
	}
}

// Replicas without a shared ring refuse each other's states; the log
// record says the state was sealed under a key this server does not hold
// (not that it was altered) and points to the key ring (issue 48).
func TestSealedStateOfAnotherReplicaPointsToTheRing(t *testing.T) {
	t.Parallel()
	a, b := newStateServer(t), newStateServer(t)
	b.expectRefused(t, b.call(t, "deploy", "staging", a.start(t, "deploy", "staging")), seal.ErrUnknownKey)
	b.mu.Lock()
	logs := b.logs.String()
	b.mu.Unlock()
	var found bool
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
		if rec["msg"] != seal.LogMessage {
			continue
		}
		found = true
		assert.Equal(t, seal.ErrUnknownKey.Error(), rec["error"])
		hint, _ := rec["hint"].(string)
		assert.Contains(t, hint, "no key ring")
		assert.Contains(t, hint, "docs/protocol-2026-07-28.md#keys")
	}
	assert.True(t, found, "no record of the refusal:\n%s", logs)
}

func TestSealedStateExpires(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	ring, err := seal.ParseKeyRing([]byte("k1:" + strings.Repeat("A", 43)))
	require.NoError(t, err)
	ss := newStateServer(t, middleware.WithStateKeys(ring, seal.WithTTL(time.Minute), seal.WithClock(clock)))
	state := ss.start(t, "deploy", "staging")
	mu.Lock()
	now = now.Add(time.Minute + time.Second)
	mu.Unlock()
	ss.expectRefused(t, ss.call(t, "deploy", "staging", state), seal.ErrExpired)
}

func TestSealedStateAcrossReplicasAndRotation(t *testing.T) {
	t.Parallel()
	k1 := "k1:" + strings.Repeat("A", 43)
	k2 := "k2:" + strings.Repeat("B", 43)
	parse := func(text string) *seal.KeyRing {
		r, err := seal.ParseKeyRing([]byte(text))
		require.NoError(t, err)
		return r
	}
	a := newStateServer(t, middleware.WithStateKeys(parse(k1)))
	b := newStateServer(t, middleware.WithStateKeys(parse(k1)))
	b.call(t, "deploy", "staging", a.start(t, "deploy", "staging"))
	assert.Equal(t, []string{"env=staging"}, b.received(), "a state sealed by one replica opens on another")

	// Rotation: k2 becomes current, k1 still opens.
	rotated := newStateServer(t, middleware.WithStateKeys(parse(k2+"\n"+k1)))
	rotated.call(t, "deploy", "staging", a.start(t, "deploy", "staging"))
	assert.Equal(t, []string{"env=staging"}, rotated.received(), "the old key still opens")
	fresh := rotated.start(t, "deploy", "staging")
	a.expectRefused(t, a.call(t, "deploy", "staging", fresh), seal.ErrUnknownKey) // sealed with k2, which a lacks
}

func TestWithoutStateSealing(t *testing.T) {
	t.Parallel()
	ss := newStateServer(t, middleware.WithoutStateSealing())
	assert.Equal(t, "env=staging", ss.start(t, "deploy", "staging"))
	ss.call(t, "deploy", "staging", "env=production")
	assert.Equal(t, []string{"env=production"}, ss.received())
}

type userKey struct{}

func TestSealedStateBoundToTheCaller(t *testing.T) {
	t.Parallel()
	ss := newStateServer(t, middleware.WithStateCaller(func(ctx context.Context) string {
		u, _ := ctx.Value(userKey{}).(string)
		return u
	}))
	alice := context.WithValue(context.Background(), userKey{}, "alice")
	mallory := context.WithValue(context.Background(), userKey{}, "mallory")
	res := ss.callAs(alice, t, "deploy", "staging", "")
	state, _ := res["requestState"].(string)
	require.NotEmpty(t, state)
	ss.expectRefused(t, ss.callAs(mallory, t, "deploy", "staging", state), seal.ErrBinding)
	ss.callAs(alice, t, "deploy", "staging", state)
	assert.Equal(t, []string{"env=staging"}, ss.received())
}

// TestSealedStateBindsArgumentsBuiltInProcess: a request built in process
// (by another layer, a task runner or a test) has Arguments but no raw
// bytes; its state is bound to those arguments all the same, so it does
// not open for a call with other arguments.
func TestSealedStateBindsArgumentsBuiltInProcess(t *testing.T) {
	t.Parallel()
	ring, err := seal.ParseKeyRing([]byte("k1:" + strings.Repeat("A", 43)))
	require.NoError(t, err)
	var ran []string
	h := middleware.SealState(seal.NewGuard(ring, slog.New(slog.DiscardHandler), nil))(
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.RequestState != "" {
				ran = append(ran, req.Params.RequestState)
				return mcp.NewToolResultText("done"), nil
			}
			return server.NewInputRequestBuilder("env=" + req.GetString("environment", "")).ToolResult(), nil
		})
	call := func(env, state string) (*mcp.CallToolResult, error) {
		req := mcp.CallToolRequest{}
		req.Params.Name = "deploy"
		req.Params.Arguments = map[string]any{"environment": env}
		req.Params.RequestState = state
		return h(context.Background(), req)
	}
	first, err := call("staging", "")
	require.NoError(t, err)
	require.NotEmpty(t, first.RequestState)
	refused, err := call("production", first.RequestState)
	require.NoError(t, err, "a refusal is an envelope, not a JSON-RPC error, even with no envelope layer outside")
	require.True(t, refused.IsError, "a state issued for staging opened for production")
	env, ok := refused.StructuredContent.(*envelope.Envelope)
	require.True(t, ok, "%#v", refused.StructuredContent)
	assert.Equal(t, envelope.ValidationError, env.ErrorType)
	require.Empty(t, ran)
	_, err = call("staging", first.RequestState)
	require.NoError(t, err)
	assert.Equal(t, []string{"env=staging"}, ran)
}

// SealState alone, with no envelope layer outside it, answers a state
// that does not open with its validation_error envelope all the same, not
// with a JSON-RPC error the model never reads.
func TestSealStateAloneRefusesWithAnEnvelope(t *testing.T) {
	t.Parallel()
	ss := newStateServerUsing(t, func(logger *slog.Logger) []server.ToolHandlerMiddleware {
		return []server.ToolHandlerMiddleware{middleware.SealState(seal.NewGuard(nil, logger, nil))}
	})
	state := ss.start(t, "deploy", "staging")
	ss.expectRefused(t, ss.call(t, "delete", "staging", state), seal.ErrBinding)
}
