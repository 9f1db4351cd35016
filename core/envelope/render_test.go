package envelope_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/redact"
)

func TestUnknownErrorIsAnIncidentWithNothingLeaked(t *testing.T) {
	t.Parallel()
	var l logs
	secret := "postgres://app:hunter2@db.internal:5432/shop"
	r := envelope.NewRenderer(envelope.WithLogger(l.logger()))
	err := envelope.AddNextSteps(fmt.Errorf("connect %s: refused", secret), "Check the order id.")
	env, raw := expect(t, r, err, envelope.InternalError)
	assert.True(t, env.Retryable)
	assert.Regexp(t, `^inc_[0-9a-f]{16}$`, env.IncidentID)
	assert.Equal(t, "The tool failed with an internal error. Its details were logged on the server. Incident ID: "+env.IncidentID+".", env.Message)
	assert.Equal(t, []string{"Check the order id.",
		"Retry the call once; if it fails again, report incident " + env.IncidentID + " to the server's operator."}, env.NextSteps,
		"the error's own steps come first, the default names the incident")
	noLeak(t, raw, "hunter2", "db.internal", "refused")

	rec := l.incident(t, env.IncidentID)
	assert.Equal(t, "mcpguard: tool failed with an unclassified error", rec["msg"])
	assert.Equal(t, "ERROR", rec["level"])
	assert.Equal(t, "shop_tool", rec["tool"])
	assert.Equal(t, "connect "+secret+": refused", rec["error"], "the server log keeps the full detail")
	assert.Equal(t, "*errors.errorString", rec["error_go_type"], "the handler's error type, not a decoration's")
	assert.NotContains(t, rec, "panic")

	env2, _ := expect(t, r, err, envelope.InternalError)
	assert.NotEqual(t, env.IncidentID, env2.IncidentID, "every failure is its own incident")
}

func TestNilErrorIsAnIncident(t *testing.T) {
	t.Parallel()
	var l logs
	env, _ := expect(t, envelope.NewRenderer(envelope.WithLogger(l.logger())), nil, envelope.InternalError)
	assert.Contains(t, l.incident(t, env.IncidentID)["error"], "nil error")

	env, raw := wire(t, envelope.NewRenderer(envelope.WithLogger(l.logger())).Missing(context.Background(), call))
	assert.Equal(t, envelope.InternalError, env.ErrorType, raw)
	assert.Equal(t, "tool handler returned neither a result nor an error", l.incident(t, env.IncidentID)["error"])
}

func TestHostileErrorMethodsAreContained(t *testing.T) {
	t.Parallel()
	var l logs
	r := envelope.NewRenderer(envelope.WithLogger(l.logger()), envelope.WithMapping(sql.ErrNoRows, envelope.NotFound))
	env, raw := expect(t, r, hostile{}, envelope.InternalError)
	assert.NotEmpty(t, env.IncidentID)
	noLeak(t, raw)
	l.incident(t, env.IncidentID)

	// A coded error whose message panics keeps its code; the message says
	// what happened and nothing of the value.
	env, raw = expect(t, r, envelope.Wrap(envelope.NotFound, hostile{}), envelope.NotFound)
	assert.Equal(t, "<*envelope.Error: Error method panicked>", env.Message, raw)
}

// panickyArgs are call arguments that panic when the redactor reads them.
type panickyArgs struct{}

func (panickyArgs) MarshalJSON() ([]byte, error) { panic("MarshalJSON at /srv/app/args.go:9") }

// Rendering code the renderer does not control panics (here the arguments'
// MarshalJSON, read when a path is found in the message): the failure
// becomes an incident of its own, logged, and the envelope names the tool.
func TestPanicWhileRenderingIsAnIncident(t *testing.T) {
	t.Parallel()
	var l logs
	r := envelope.NewRenderer(envelope.WithLogger(l.logger()))
	c := envelope.Call{Tool: "notes_open", Args: panickyArgs{}}
	env, raw := wire(t, r.Error(context.Background(), c, fmt.Errorf("open /home/alice/x.md: %w", fs.ErrNotExist)))
	assert.Equal(t, envelope.InternalError, env.ErrorType, raw)
	assert.Equal(t, "notes_open", env.Tool)
	noLeak(t, raw, "MarshalJSON", "alice")
	rec := l.incident(t, env.IncidentID)
	assert.Equal(t, "mcpguard: rendering a tool failure panicked", rec["msg"])
	assert.Equal(t, "notes_open", rec["tool"])
	assert.Equal(t, "MarshalJSON at /srv/app/args.go:9", rec["panic"])
	assert.Equal(t, "ERROR", rec["level"])

	env, raw = wire(t, r.Text(context.Background(), c, "open /home/alice/x.md failed"))
	assert.Equal(t, envelope.InternalError, env.ErrorType, raw)
}

func TestCodedMessagesAreRedactedButReadable(t *testing.T) {
	t.Parallel()
	err := envelope.Wrap(envelope.ExecutionFailed, errors.New(`dial postgres://app:hunter2@db:5432/shop: relation "users" does not exist at /srv/shop/db.go:88`))
	env, raw := expect(t, envelope.NewRenderer(), err, envelope.ExecutionFailed)
	noLeak(t, raw, "hunter2", "/srv/shop")
	assert.Contains(t, env.Message, `relation "users" does not exist`)
	assert.Contains(t, env.Message, "postgres://app:[REDACTED]@db:5432")

	// redact.New() turns redaction off, and a nil redactor means the same.
	for _, red := range []*redact.Redactor{redact.New(), nil} {
		env, _ = expect(t, envelope.NewRenderer(envelope.WithRedactor(red)), err, envelope.ExecutionFailed)
		assert.Contains(t, env.Message, "hunter2")
	}
}

// Defect 4 of the adoption issue: path redaction erased what the agent
// itself sent. A path in the call's own arguments is no leak; any other
// path, and any secret even when the agent sent it, is still redacted.
func TestRedactionKeepsWhatTheAgentSent(t *testing.T) {
	t.Parallel()
	r := envelope.NewRenderer()
	sent := "/home/alice/notes/todo.md"
	c := envelope.Call{Tool: "notes_open", Args: json.RawMessage(`{"path":"` + sent + `"}`)}
	err := fmt.Errorf("open %s: %w (config in /etc/tracker/secrets.yaml)", sent, fs.ErrNotExist)
	env, raw := wire(t, r.Error(context.Background(), c, err))
	assert.Equal(t, envelope.NotFound, env.ErrorType)
	assert.True(t, strings.HasPrefix(env.Message, "open "+sent+": file does not exist"), env.Message)
	assert.NotContains(t, raw, "/etc/tracker", "a path the agent never sent is still redacted")
	assert.Equal(t, "notes_open", env.Tool)

	env, _ = wire(t, r.Error(context.Background(), envelope.Call{Tool: "t"}, err))
	assert.NotContains(t, env.Message, sent, "without the arguments the path is redacted")

	// A secret stays redacted even when the client sent it; so do steps
	// and fields.
	dsn := "postgres://app:hunter2@db/shop"
	c = envelope.Call{Tool: "t", Args: map[string]any{"dsn": dsn}}
	err = envelope.AddFields(envelope.AddNextSteps(envelope.New(envelope.ValidationError, "bad dsn "+dsn), "Do not send "+dsn),
		envelope.FieldError{Field: "dsn", Rule: "format", Param: dsn, Suggestion: dsn, Allowed: []string{"x", dsn}, Message: "bad " + dsn})
	_, raw = wire(t, r.Error(context.Background(), c, err))
	noLeak(t, raw, "hunter2")

	// Switched off by name.
	env, _ = wire(t, envelope.NewRenderer(envelope.WithRedactor(redact.Default().Without("paths"))).Error(context.Background(), envelope.Call{Tool: "t"},
		fmt.Errorf("open %s: %w", sent, fs.ErrNotExist)))
	assert.Contains(t, env.Message, sent)
}

func TestFieldsAreRedactedAndCleanOnesKept(t *testing.T) {
	t.Parallel()
	clean := envelope.FieldError{Field: "limit", Rule: "max", Param: "50", Allowed: []string{"1", "50"}, Suggestion: "50", Message: "limit must be at most 50"}
	secret := "sk-live0123456789abcdefghij"
	dirty := envelope.FieldError{Field: "key", Rule: "oneof", Allowed: []string{"public", secret, "other"}, Message: "key must be one of the allowed"}
	err := envelope.AddFields(envelope.ErrValidation, clean, dirty)
	env, raw := expect(t, envelope.NewRenderer(), err, envelope.ValidationError)
	noLeak(t, raw, secret)
	require.Len(t, env.Fields, 2)
	assert.Equal(t, clean, env.Fields[0])
	assert.Equal(t, "public", env.Fields[1].Allowed[0])
	assert.Equal(t, "other", env.Fields[1].Allowed[2], "values after the redacted one are kept")
	assert.NotEqual(t, secret, env.Fields[1].Allowed[1])
	assert.Len(t, env.Fields[1].Allowed, 3)
	assert.Equal(t, secret, dirty.Allowed[1], "the handler's own slice is never modified")

	// Wherever the secret sits in the list, first or last, it is redacted
	// and the clean values around it are kept.
	for _, allowed := range [][]string{{secret, "public"}, {"public", secret}, {secret}, {"a", "b", secret}} {
		f := envelope.FieldError{Field: "key", Rule: "oneof", Allowed: allowed, Message: "m"}
		env, raw := expect(t, envelope.NewRenderer(), envelope.AddFields(envelope.ErrValidation, f), envelope.ValidationError)
		noLeak(t, raw, secret)
		require.Len(t, env.Fields[0].Allowed, len(allowed))
		for i, v := range allowed {
			if v != secret {
				assert.Equal(t, v, env.Fields[0].Allowed[i], raw)
			}
		}
	}
}

func TestSecretsInNextStepsAreRedacted(t *testing.T) {
	t.Parallel()
	err := envelope.AddNextSteps(envelope.ErrNotFound, "Retry with the key sk-live0123456789abcdefghij.", "Call shop_search.")
	env, raw := expect(t, envelope.NewRenderer(), err, envelope.NotFound)
	noLeak(t, raw, "sk-live0123456789abcdefghij")
	assert.Equal(t, "Call shop_search.", env.NextSteps[1], "a clean step is kept as it is")
	assert.True(t, strings.HasPrefix(env.NextSteps[0], "Retry with the key "), env.NextSteps[0])
}

func TestMessagesAreBounded(t *testing.T) {
	t.Parallel()
	r := envelope.NewRenderer()
	const suffix = " …(truncated)"
	t.Run("exactly the bound is not cut", func(t *testing.T) {
		t.Parallel()
		msg := strings.Repeat("x", envelope.MaxMessageBytes)
		env, _ := expect(t, r, envelope.New(envelope.ExecutionFailed, msg), envelope.ExecutionFailed)
		assert.Equal(t, msg, env.Message)
	})
	t.Run("one byte more is", func(t *testing.T) {
		t.Parallel()
		msg := strings.Repeat("x", envelope.MaxMessageBytes+1)
		env, _ := expect(t, r, envelope.New(envelope.ExecutionFailed, msg), envelope.ExecutionFailed)
		assert.Equal(t, msg[:envelope.MaxMessageBytes-len(suffix)]+suffix, env.Message, "the mark counts against the bound")
	})
	t.Run("never inside a character", func(t *testing.T) {
		t.Parallel()
		// Two ASCII bytes first, so the cut, 2048 bytes less the mark's
		// 15, falls inside a two-byte é.
		msg := "xx" + strings.Repeat("é", envelope.MaxMessageBytes)
		env, _ := expect(t, r, envelope.New(envelope.ExecutionFailed, msg), envelope.ExecutionFailed)
		assert.True(t, utf8.ValidString(env.Message))
		assert.Equal(t, "xx"+strings.Repeat("é", (envelope.MaxMessageBytes-len(suffix)-2)/2)+suffix, env.Message)
	})
	t.Run("bytes that start no character", func(t *testing.T) {
		t.Parallel()
		env, _ := expect(t, r, envelope.New(envelope.ExecutionFailed, strings.Repeat("\x80", 3*envelope.MaxMessageBytes)), envelope.ExecutionFailed)
		assert.LessOrEqual(t, len(env.Message), envelope.MaxMessageBytes)
		assert.True(t, strings.HasSuffix(env.Message, "…(truncated)"), env.Message)
	})
	t.Run("huge", func(t *testing.T) {
		t.Parallel()
		huge := strings.Repeat("é", 500_000) + " password=hunter2"
		env, raw := expect(t, r, envelope.Wrap(envelope.ExecutionFailed, errors.New(huge)), envelope.ExecutionFailed)
		assert.LessOrEqual(t, len(env.Message), envelope.MaxMessageBytes)
		assert.True(t, utf8.ValidString(env.Message))
		noLeak(t, raw, "hunter2")
	})
}

// A secret whose shape has a fixed length (a GitHub token is ghp_ and 36
// characters) is only recognised whole. Cut first and redact second, and a
// token straddling the cut leaves a prefix no rule matches on the wire.
func TestTokenStraddlingTheCutLeavesNoPrefix(t *testing.T) {
	t.Parallel()
	token := "ghp_" + strings.Repeat("A1b2C3d4E5", 4)[:36]
	r := envelope.NewRenderer()
	for _, before := range []int{4, 8, 12, 20, 30, 39} {
		pad := strings.Repeat("word ", envelope.MaxMessageBytes/5)[:envelope.MaxMessageBytes-before-1] + " "
		env, raw := expect(t, r, envelope.New(envelope.ExecutionFailed, pad+token+" is invalid"), envelope.ExecutionFailed)
		noLeak(t, raw, token[:min(before, 12)])
		assert.NotContains(t, env.Message, token[:4], "cut %d bytes into the token", before)
	}
	for _, pad := range []int{envelope.MaxMessageBytes - 10, 4*envelope.MaxMessageBytes - 10} {
		msg := `{"a":"` + strings.Repeat("x", pad) + `","dsn":"postgres://app:s3cretpw@db/shop","t":"` + token + `"}`
		_, raw := expect(t, r, envelope.New(envelope.ExecutionFailed, msg), envelope.ExecutionFailed)
		noLeak(t, raw, "s3cretpw", token[:12])
	}
}

func TestDecorations(t *testing.T) {
	t.Parallel()
	r := envelope.NewRenderer()
	base := fmt.Errorf("session expired: %w", envelope.ErrAuthenticationFailed)
	def := envelope.DefaultNextSteps(envelope.AuthenticationFailed)[0]
	t.Run("next steps come first and are de-duplicated", func(t *testing.T) {
		t.Parallel()
		err := envelope.AddNextSteps(
			envelope.AddNextSteps(base, "Call shop_authenticate with your API key, then retry.", "  "+def, "", "   "),
			"Outer step first.", "Outer step first. ")
		env, _ := expect(t, r, err, envelope.AuthenticationFailed)
		assert.Equal(t, []string{"Outer step first.", "Call shop_authenticate with your API key, then retry.", def}, env.NextSteps)
		assert.Equal(t, "session expired: authentication failed", env.Message, "decorations do not change the message")
	})
	t.Run("replace", func(t *testing.T) {
		t.Parallel()
		env, _ := expect(t, r, envelope.AddNextSteps(envelope.ReplaceNextSteps(base, "Only this."), "And this."), envelope.AuthenticationFailed)
		assert.Equal(t, []string{"And this.", "Only this."}, env.NextSteps)
		env, raw := expect(t, r, envelope.ReplaceNextSteps(base), envelope.AuthenticationFailed)
		assert.Empty(t, env.NextSteps, raw)
		assert.Contains(t, raw, `"next_steps":[]`)
	})
	t.Run("fields and retryable", func(t *testing.T) {
		t.Parallel()
		f := envelope.FieldError{Field: "limit", Rule: "max", Param: "50", Message: "limit must be at most 50"}
		g := envelope.FieldError{Field: "q", Rule: "required", Message: "q is required"}
		err := envelope.SetRetryable(envelope.AddFields(envelope.AddFields(envelope.New(envelope.ValidationError, "2 arguments are invalid"), g), f), true)
		env, raw := expect(t, r, err, envelope.ValidationError)
		assert.Equal(t, []envelope.FieldError{f, g}, env.Fields, "outermost first")
		assert.True(t, env.Retryable)
		assert.Contains(t, raw, `"fields":[{"field":"limit","rule":"max","param":"50","message":"limit must be at most 50"}`)
	})
	t.Run("outermost retryable wins", func(t *testing.T) {
		t.Parallel()
		env, _ := expect(t, r, envelope.SetRetryable(envelope.SetRetryable(base, true), false), envelope.AuthenticationFailed)
		assert.False(t, env.Retryable)
		env, _ = expect(t, r, envelope.SetRetryable(envelope.SetRetryable(base, false), true), envelope.AuthenticationFailed)
		assert.True(t, env.Retryable)
		env, _ = expect(t, r, envelope.AddNextSteps(envelope.SetRetryable(base, true), "x"), envelope.AuthenticationFailed)
		assert.True(t, env.Retryable, "a decoration without retryable does not reset it")
	})
	t.Run("joined errors", func(t *testing.T) {
		t.Parallel()
		err := errors.Join(envelope.AddNextSteps(envelope.ErrNotFound, "Call shop_search first."), errors.New("second"))
		env, _ := expect(t, r, err, envelope.NotFound)
		assert.Equal(t, "Call shop_search first.", env.NextSteps[0])
	})
	t.Run("default steps override", func(t *testing.T) {
		t.Parallel()
		over := envelope.NewRenderer(envelope.WithDefaultNextSteps(envelope.NotFound, "Call shop_search to find valid product IDs."),
			envelope.WithDefaultNextSteps(envelope.AccessDenied))
		env, _ := expect(t, over, envelope.ErrNotFound, envelope.NotFound)
		assert.Equal(t, []string{"Call shop_search to find valid product IDs."}, env.NextSteps)
		env, _ = expect(t, over, envelope.AddNextSteps(envelope.ErrAccessDenied, "Ask the owner."), envelope.AccessDenied)
		assert.Equal(t, []string{"Ask the owner."}, env.NextSteps, "no steps configured means none")
		env, _ = expect(t, over, envelope.ErrValidation, envelope.ValidationError)
		assert.Equal(t, envelope.DefaultNextSteps(envelope.ValidationError), env.NextSteps, "other codes keep theirs")
	})
}

func TestRetryAfterInWholeMilliseconds(t *testing.T) {
	t.Parallel()
	r := envelope.NewRenderer()
	refused := envelope.SetRetryable(envelope.New(envelope.ExecutionFailed, "rate limit reached"), true)
	for d, want := range map[time.Duration]int64{
		1500 * time.Microsecond: 2,
		250 * time.Millisecond:  250,
		time.Millisecond:        1,
		time.Nanosecond:         1,
	} {
		env, raw := expect(t, r, envelope.SetRetryAfter(refused, d), envelope.ExecutionFailed)
		assert.Equal(t, want, env.RetryAfterMS, "%v: %s", d, raw)
		assert.True(t, env.Retryable)
	}
	_, raw := expect(t, r, refused, envelope.ExecutionFailed)
	assert.NotContains(t, raw, "retry_after_ms")
	env, _ := expect(t, r, envelope.SetRetryAfter(envelope.SetRetryAfter(refused, 2*time.Second), time.Second), envelope.ExecutionFailed)
	assert.Equal(t, int64(1000), env.RetryAfterMS, "the outermost delay wins")
	env, _ = expect(t, r, envelope.AddNextSteps(envelope.SetRetryAfter(refused, time.Second), "x"), envelope.ExecutionFailed)
	assert.Equal(t, int64(1000), env.RetryAfterMS, "a decoration without a delay keeps the inner one")
}

func TestWithInternalMessage(t *testing.T) {
	t.Parallel()
	const msg, step = "  Something broke on our side.  ", "Tell the on-call engineer about the incident_id."
	r := envelope.NewRenderer(envelope.WithLogger(discard()), envelope.WithInternalMessage(msg),
		envelope.WithDefaultNextSteps(envelope.InternalError, step))
	check := func(env *envelope.Envelope) {
		t.Helper()
		env, raw := wire(t, env)
		assert.Equal(t, "Something broke on our side. Incident ID: "+env.IncidentID+".", env.Message, raw)
		assert.Equal(t, []string{"Tell the on-call engineer about incident " + env.IncidentID + "."}, env.NextSteps)
		assert.True(t, env.Retryable)
	}
	check(r.Error(context.Background(), call, errors.New("boom")))
	check(r.Recovered(context.Background(), "shop_tool", "boom", envelope.RecoverOptions{}))
	check(r.Internal("shop_tool", "inc_0123456789abcdef"))
	check(r.Text(context.Background(), call, `{"error":"internal","message":"nil deref in cache.go"}`))
}
