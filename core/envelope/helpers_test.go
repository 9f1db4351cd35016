package envelope_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/internal/leak"
)

// The core renders envelopes; the SDK fronts put env.Marshal() on the wire
// as the text of an error result. These tests assert on that text, decoded
// as a client decodes it, so every check is a check of what an agent reads.

// call is the tool call every test renders for unless it says otherwise.
var call = envelope.Call{Tool: "shop_tool"}

// wire marshals env as a front sends it and decodes it back strictly: only
// the envelope's members, success false, a valid code, the tool named. It
// returns the decoded envelope and the raw JSON.
func wire(t *testing.T, env *envelope.Envelope) (*envelope.Envelope, string) {
	t.Helper()
	require.NotNil(t, env, "a renderer never returns nil")
	raw := string(env.Marshal())
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	var got envelope.Envelope
	require.NoError(t, dec.Decode(&got), raw)
	var members map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(raw), &members))
	assert.JSONEq(t, "false", string(members["success"]), raw)
	assert.True(t, got.ErrorType.Valid(), raw)
	assert.NotNil(t, members["next_steps"], "next_steps is always present: %s", raw)
	assert.NotEqual(t, "null", string(members["next_steps"]), "next_steps is an array, never null: %s", raw)
	return &got, raw
}

// expect renders err with r and checks the code on the wire.
func expect(t *testing.T, r *envelope.Renderer, err error, code envelope.Code) (*envelope.Envelope, string) {
	t.Helper()
	env, raw := wire(t, r.Error(context.Background(), call, err))
	require.Equal(t, code, env.ErrorType, raw)
	return env, raw
}

// noLeak fails when the wire text holds any of secrets or anything the
// shared leak patterns (internal/leak) find.
func noLeak(t *testing.T, raw string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		assert.NotContains(t, raw, s, "leaked on the wire")
	}
	assert.Empty(t, leak.Find(raw), "leak patterns found on the wire: %s", raw)
}

// logs captures slog records as JSON objects.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logs) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func (l *logs) records(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
		out = append(out, rec)
	}
	return out
}

// incident returns the one record that names the incident id, failing the
// test when there is not exactly one.
func (l *logs) incident(t *testing.T, id string) map[string]any {
	t.Helper()
	var found []map[string]any
	for _, rec := range l.records(t) {
		if rec["incident_id"] == id {
			found = append(found, rec)
		}
	}
	require.Len(t, found, 1, "one log record for incident %q: %v", id, l.records(t))
	return found[0]
}

// discard is a logger for renderers whose log records a test ignores.
func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
