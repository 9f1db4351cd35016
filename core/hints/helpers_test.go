package hints_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/hints"
)

// These tests drive core/hints the way an SDK's front does, with stand-in
// request and result types, and assert on what would reach a client: the
// next_steps of an envelope as env.Marshal() puts it on the wire, and the
// steps and text of a success. No MCP SDK is involved.

// shopReq and shopRes stand in for an SDK's request and result types.
type (
	shopReq struct{ id string }
	shopRes struct{ rows int }
)

type (
	rule = hints.Rule[shopReq, *shopRes]
	hint = hints.Hint[shopReq, *shopRes]
	reg  = hints.Registry[shopReq, *shopRes]
	tool = hints.Tool[shopReq, *shopRes]
)

// errSessionExpired is a user sentinel the shop wraps as an
// authentication failure; errNoRows one that only the renderer's mapping
// makes not_found.
var (
	errSessionExpired = errors.New("session expired")
	errNoRows         = errors.New("no rows in result set")
)

const (
	stepAuth   = "Call shop_authenticate with your API key, then retry."
	stepKey    = "Ask the user to check the API key configured for the shop."
	stepSearch = "Call shop_search to find the order's ID."
	stepStatus = "Call shop_status to see whether the shop is up."
	stepOwner  = "Only the order's owner may cancel it: call shop_whoami to see who is signed in."
)

func shopRules() []rule {
	return []rule{
		hints.For("shop_order",
			hints.OnErrorIs[shopReq, *shopRes](errSessionExpired, hints.Call("shop_authenticate", "with your API key, then retry")),
			hints.OnError[shopReq, *shopRes](envelope.AuthenticationFailed, hints.Text(stepKey)),
			hints.OnError[shopReq, *shopRes](envelope.NotFound, hints.Call("shop_search", "to find the order's ID")),
			hints.OnError[shopReq, *shopRes](envelope.ExecutionFailed, hints.Call("shop_status", "to see whether the shop is up")),
		),
		hints.For("shop_cancel",
			hints.OnError[shopReq, *shopRes](envelope.AccessDenied, hints.Text(stepOwner)),
			hints.ReplaceDefaults[shopReq, *shopRes](),
		),
	}
}

// fromCall rebuilds the request of a call whose Request is not a shopReq,
// as a front does for an error another front rendered.
func fromCall(call envelope.Call) shopReq {
	args, _ := call.Args.(map[string]any)
	id, _ := args["id"].(string)
	return shopReq{id: "rebuilt:" + id}
}

// newReg compiles rules as a front does, logging nowhere unless opts
// say otherwise.
func newReg(rules []rule, opts ...hints.Option) *reg {
	return hints.NewRegistry(rules, fromCall, append([]hints.Option{hints.WithLogger(quiet)}, opts...)...)
}

var quiet = slog.New(slog.DiscardHandler)

// renderer is the envelope renderer the tests' "server" runs, with the
// shop's mapping of errNoRows.
func renderer(opts ...envelope.Option) *envelope.Renderer {
	return envelope.NewRenderer(append([]envelope.Option{
		envelope.WithMapping(errNoRows, envelope.NotFound),
		envelope.WithLogger(quiet),
	}, opts...)...)
}

func callOf(name, id string) envelope.Call {
	return envelope.Call{Tool: name, Args: map[string]any{"id": id}, Request: shopReq{id: id}}
}

// path is how a front gets a Go error's steps into the envelope: a
// renderer further in finds them through the context Watch returns, or a
// renderer further out through the error Attach returns.
type path struct {
	name   string
	render func(ctx context.Context, t *tool, r *envelope.Renderer, call envelope.Call, err error) *envelope.Envelope
}

var paths = []path{
	{"renderer inside", func(ctx context.Context, t *tool, r *envelope.Renderer, call envelope.Call, err error) *envelope.Envelope {
		inner, w := t.Watch(ctx)
		env := r.Error(inner, call, err)
		if w.Pending() {
			panic("a renderer inside asked for the steps, yet the Watch is pending")
		}
		return env
	}},
	{"renderer outside", func(ctx context.Context, t *tool, r *envelope.Renderer, call envelope.Call, err error) *envelope.Envelope {
		_, w := t.Watch(ctx)
		return r.Error(context.Background(), call, w.Attach(err))
	}},
}

// resultPath is how a front gets steps into a failure that came as a
// result (no Go error): a renderer further in normalizes the result's
// text under the Watch's context, or the front merges them into the
// envelope rendered without them.
type resultPath struct {
	name   string
	render func(ctx context.Context, t *tool, r *envelope.Renderer, call envelope.Call, text string) *envelope.Envelope
}

var resultPaths = []resultPath{
	{"normalized inside", func(ctx context.Context, t *tool, r *envelope.Renderer, call envelope.Call, text string) *envelope.Envelope {
		inner, _ := t.Watch(ctx)
		return r.Text(inner, call, text)
	}},
	{"merged", func(ctx context.Context, t *tool, r *envelope.Renderer, call envelope.Call, text string) *envelope.Envelope {
		env := r.Text(context.Background(), call, text)
		t.Merge(ctx, call.Request.(shopReq), env, r)
		return env
	}},
}

// wire marshals env as a front sends it and decodes it back strictly, as
// a client reads it.
func wire(t *testing.T, env *envelope.Envelope) *envelope.Envelope {
	t.Helper()
	require.NotNil(t, env)
	raw := env.Marshal()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var got envelope.Envelope
	require.NoError(t, dec.Decode(&got), "%s", raw)
	assert.True(t, got.ErrorType.Valid(), "%s", raw)
	assert.NotNil(t, got.NextSteps, "next_steps is always an array: %s", raw)
	return &got
}

func defaults(c envelope.Code) []string { return envelope.DefaultNextSteps(c) }

func with(steps []string, more ...string) []string {
	return append(append([]string(nil), steps...), more...)
}

// logBuffer collects JSON log records.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// records returns the records logged so far, decoded.
func (l *logBuffer) records(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
		out = append(out, rec)
	}
	return out
}

func captureLog() (*slog.Logger, *logBuffer) {
	var b logBuffer
	return slog.New(slog.NewJSONHandler(&b, nil)), &b
}
