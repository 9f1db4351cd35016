package envelope_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/redact"
)

type custom struct{ n int }

func TestRecoveredLogsTheValueAndSendsAnIncident(t *testing.T) {
	t.Parallel()
	var own, fallback logs
	r := envelope.NewRenderer(envelope.WithLogger(fallback.logger()))
	var got envelope.Panic
	calls := 0
	env, raw := wire(t, r.Recovered(context.Background(), "shop_tool", custom{7}, envelope.RecoverOptions{
		Logger: own.logger(),
		Stack:  true,
		OnPanic: func(_ context.Context, p envelope.Panic) {
			calls++
			got = p
		},
	}))
	assert.Equal(t, envelope.InternalError, env.ErrorType)
	assert.Equal(t, "shop_tool", env.Tool)
	assert.True(t, env.Retryable)
	assert.Regexp(t, `^inc_[0-9a-f]{16}$`, env.IncidentID)
	noLeak(t, raw, "custom", "goroutine")

	rec := own.incident(t, env.IncidentID)
	assert.Equal(t, "mcpguard: recovered panic in tool call", rec["msg"])
	assert.Equal(t, "ERROR", rec["level"])
	assert.Equal(t, "shop_tool", rec["tool"])
	assert.Equal(t, "{7}", rec["panic"])
	assert.Equal(t, "envelope_test.custom", rec["panic_go_type"])
	assert.Contains(t, rec["stack"], "goroutine")
	assert.Empty(t, fallback.records(t), "RecoverOptions.Logger wins over the renderer's")

	assert.Equal(t, 1, calls)
	assert.Equal(t, env.IncidentID, got.IncidentID)
	assert.Equal(t, "shop_tool", got.Tool)
	assert.Equal(t, custom{7}, got.Value)
	assert.Contains(t, string(got.Stack), "goroutine")
}

func TestRecoveredWithoutStack(t *testing.T) {
	t.Parallel()
	var l logs
	r := envelope.NewRenderer(envelope.WithLogger(l.logger()))
	env, _ := wire(t, r.Recovered(context.Background(), "t", errors.New("boom"), envelope.RecoverOptions{}))
	rec := l.incident(t, env.IncidentID)
	assert.NotContains(t, rec, "stack", "no stack unless asked")
	assert.Equal(t, "boom", rec["panic"])
	assert.Equal(t, "*errors.errorString", rec["panic_go_type"])

	// OnPanic gets the stack even when it is not logged.
	var stack []byte
	env, _ = wire(t, r.Recovered(context.Background(), "t", nil, envelope.RecoverOptions{
		OnPanic: func(_ context.Context, p envelope.Panic) { stack = p.Stack },
	}))
	assert.Contains(t, string(stack), "goroutine")
	assert.NotContains(t, l.incident(t, env.IncidentID), "stack")
}

func TestPanickingOnPanicIsContained(t *testing.T) {
	t.Parallel()
	var l logs
	r := envelope.NewRenderer(envelope.WithLogger(l.logger()))
	var env *envelope.Envelope
	require.NotPanics(t, func() {
		env = r.Recovered(context.Background(), "t", "first", envelope.RecoverOptions{
			OnPanic: func(context.Context, envelope.Panic) { panic("second") },
		})
	})
	env, raw := wire(t, env)
	noLeak(t, raw, "first", "second")
	var msgs []string
	for _, rec := range l.records(t) {
		assert.Equal(t, env.IncidentID, rec["incident_id"])
		msgs = append(msgs, rec["msg"].(string))
	}
	assert.Equal(t, []string{"mcpguard: recovered panic in tool call", "mcpguard: WithOnPanic callback panicked"}, msgs)
	assert.Equal(t, "second", l.records(t)[1]["panic"])
}

// panickyHandler is a slog handler whose Handle panics.
type panickyHandler struct{ slog.Handler }

func (panickyHandler) Handle(context.Context, slog.Record) error { panic("log sink down") }

func TestPanickingLoggerIsContained(t *testing.T) {
	t.Parallel()
	bad := slog.New(panickyHandler{slog.DiscardHandler})
	r := envelope.NewRenderer(envelope.WithLogger(bad))
	var env *envelope.Envelope
	require.NotPanics(t, func() { env = r.Error(context.Background(), call, errors.New("boom")) })
	env, _ = wire(t, env)
	assert.Equal(t, envelope.InternalError, env.ErrorType)
	require.NotPanics(t, func() { env = r.Recovered(context.Background(), "t", "x", envelope.RecoverOptions{}) })
	wire(t, env)
}

func TestFallbackInternal(t *testing.T) {
	t.Parallel()
	env, raw := wire(t, envelope.FallbackInternal())
	assert.Equal(t, envelope.InternalError, env.ErrorType)
	assert.True(t, env.Retryable)
	assert.Empty(t, env.IncidentID)
	assert.Equal(t, envelope.DefaultNextSteps(envelope.InternalError), env.NextSteps)
	assert.Equal(t, "The tool failed with an internal error. Its details could not be logged.", env.Message, raw)
}

func TestInternal(t *testing.T) {
	t.Parallel()
	env, raw := wire(t, envelope.NewRenderer().Internal("shop_tool", "inc_0123456789abcdef"))
	assert.Equal(t, `{"success":false,"error_type":"internal_error","tool":"shop_tool",`+
		`"message":"The tool failed with an internal error. Its details were logged on the server. Incident ID: inc_0123456789abcdef.",`+
		`"next_steps":["Retry the call once; if it fails again, report incident inc_0123456789abcdef to the server's operator."],`+
		`"retryable":true,"incident_id":"inc_0123456789abcdef"}`, raw)
	assert.Equal(t, "inc_0123456789abcdef", env.IncidentID)
}

func TestRendererAccessors(t *testing.T) {
	t.Parallel()
	assert.True(t, envelope.NewRenderer().Normalizes())
	assert.False(t, envelope.NewRenderer(envelope.WithoutNormalization()).Normalizes())

	red := redact.Default().Without("paths")
	assert.Same(t, red, envelope.NewRenderer(envelope.WithRedactor(red)).Redactor())
	assert.Same(t, redact.Default(), envelope.NewRenderer().Redactor())
	assert.NotNil(t, envelope.NewRenderer(envelope.WithRedactor(nil)).Redactor(), "nil means no redaction, not a nil redactor")
	assert.Equal(t, "postgres://app:hunter2@db", envelope.NewRenderer(envelope.WithRedactor(nil)).Redactor().String("postgres://app:hunter2@db"))

	l := discard()
	assert.Same(t, l, envelope.NewRenderer(envelope.WithLogger(l)).Logger())
	assert.Same(t, slog.Default(), envelope.NewRenderer().Logger(), "slog.Default at the time of the call")

	r := envelope.NewRenderer(envelope.WithDefaultNextSteps(envelope.InternalError, "Report the incident_id.", "Or wait."))
	assert.Equal(t, []string{"Report incident inc_1.", "Or wait."}, r.DefaultNextSteps(envelope.InternalError, "inc_1"))
	assert.Equal(t, []string{"Report the incident_id.", "Or wait."}, r.DefaultNextSteps(envelope.InternalError, ""))
	d := envelope.NewRenderer()
	assert.Equal(t, envelope.DefaultNextSteps(envelope.NotFound), d.DefaultNextSteps(envelope.NotFound, "inc_1"), "only internal errors name the incident")
	s := d.DefaultNextSteps(envelope.NotFound, "")
	s[0] = "changed"
	assert.Equal(t, envelope.DefaultNextSteps(envelope.NotFound), d.DefaultNextSteps(envelope.NotFound, ""), "a fresh copy")
}

func TestFailureMeta(t *testing.T) {
	t.Parallel()
	r := envelope.NewRenderer(envelope.WithToolFailureMeta(), envelope.WithLogger(discard()))
	_, ok := envelope.NewRenderer().FailureMeta(r.Error(context.Background(), call, envelope.ErrNotFound))
	assert.False(t, ok, "opt-in only")
	_, ok = r.FailureMeta(nil)
	assert.False(t, ok)

	for code, class := range map[envelope.Code]string{
		envelope.AuthenticationFailed: "governance", envelope.AccessDenied: "governance",
		envelope.ValidationError: "capability", envelope.NotFound: "capability",
		envelope.ConfigurationError: "reliability", envelope.ExecutionFailed: "reliability", envelope.InternalError: "reliability",
	} {
		env := r.Error(context.Background(), call, envelope.New(code, "m"))
		meta, ok := r.FailureMeta(env)
		require.True(t, ok)
		assert.Equal(t, class, meta["class"], code)
		assert.Equal(t, string(code), meta["code"])
		assert.Equal(t, env.Retryable, meta["retryable"])
		assert.Equal(t, strings.Join(env.NextSteps, " "), meta["agentGuidance"])
		assert.NotContains(t, meta, "retryNotBefore", "no delay, no retryNotBefore")
		if code == envelope.InternalError {
			assert.Equal(t, env.IncidentID, meta["correlationId"], "the incident is the correlation id")
		} else {
			assert.Regexp(t, `^inc_[0-9a-f]{16}$`, meta["correlationId"])
		}
	}

	refused := envelope.SetRetryAfter(envelope.SetRetryable(envelope.New(envelope.ExecutionFailed, "rate limit reached"), true), 90*time.Second)
	meta, ok := r.FailureMeta(r.Error(context.Background(), call, refused))
	require.True(t, ok)
	at, err := time.Parse(time.RFC3339Nano, meta["retryNotBefore"].(string))
	require.NoError(t, err)
	assert.True(t, at.After(time.Now().Add(60*time.Second)), "about 90 s from now: %v", at)
	assert.True(t, at.Before(time.Now().Add(120*time.Second)), "about 90 s from now: %v", at)
	assert.Equal(t, time.UTC, at.Location())
	assert.True(t, strings.HasSuffix(meta["retryNotBefore"].(string), "Z"))
}
