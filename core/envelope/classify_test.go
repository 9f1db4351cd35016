package envelope_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
)

func TestSentinelsRenderAsTheirCode(t *testing.T) {
	t.Parallel()
	r := envelope.NewRenderer()
	for _, c := range envelope.Codes() {
		if c == envelope.InternalError {
			continue
		}
		err := fmt.Errorf("card ATC-2026-000001: %w", envelope.New(c, "no luck"))
		env, raw := expect(t, r, err, c)
		assert.Equal(t, "shop_tool", env.Tool)
		assert.Equal(t, "card ATC-2026-000001: no luck", env.Message)
		assert.Equal(t, envelope.DefaultNextSteps(c), env.NextSteps)
		assert.False(t, env.Retryable)
		assert.NotContains(t, raw, "incident_id")
		assert.NotContains(t, raw, "fields")
		assert.NotContains(t, raw, "retry_after_ms")
	}
}

// timeoutError is a net.Error whose Timeout method says so, as a dialer's
// or an HTTP client's is.
type timeoutError struct{ timeout bool }

func (timeoutError) Error() string   { return "dial tcp: i/o timeout" }
func (e timeoutError) Timeout() bool { return e.timeout }

// panickyTimeout is an error whose Timeout method panics.
type panickyTimeout struct{}

func (panickyTimeout) Error() string { return "odd" }
func (panickyTimeout) Timeout() bool { panic("Timeout") }

func TestStandardLibraryErrorsAreClassified(t *testing.T) {
	t.Parallel()
	_, openErr := os.Open(t.TempDir() + "/missing.md")
	require.Error(t, openErr)
	const timedOut = "The call timed out or was cancelled"
	cases := []struct {
		name      string
		err       error
		code      envelope.Code
		retryable bool
		first     string
	}{
		{"fs.ErrNotExist", fmt.Errorf("open notes.md: %w", fs.ErrNotExist), envelope.NotFound, false, "Verify the identifier"},
		{"os.Open of a missing file", openErr, envelope.NotFound, false, "Verify the identifier"},
		{"fs.ErrPermission", fmt.Errorf("write report: %w", fs.ErrPermission), envelope.AccessDenied, false, "Do not retry"},
		{"os.ErrDeadlineExceeded", fmt.Errorf("read tcp: %w", os.ErrDeadlineExceeded), envelope.ExecutionFailed, true, timedOut},
		{"net.Error timeout", fmt.Errorf("query: %w", timeoutError{true}), envelope.ExecutionFailed, true, timedOut},
		{"context.DeadlineExceeded", fmt.Errorf("upstream: %w", context.DeadlineExceeded), envelope.ExecutionFailed, true, timedOut},
		{"context.Canceled", fmt.Errorf("upstream: %w", context.Canceled), envelope.ExecutionFailed, true, timedOut},
		{"Timeout false", timeoutError{false}, envelope.InternalError, true, "Retry the call once"},
		{"Timeout panics", panickyTimeout{}, envelope.InternalError, true, "Retry the call once"},
	}
	r := envelope.NewRenderer(envelope.WithLogger(discard()))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env, raw := expect(t, r, c.err, c.code)
			assert.Equal(t, c.retryable, env.Retryable, raw)
			assert.True(t, strings.HasPrefix(env.NextSteps[0], c.first), raw)
			if c.code != envelope.InternalError {
				assert.Empty(t, env.IncidentID, "a classified error is not an incident")
				assert.True(t, strings.HasSuffix(env.Message, c.err.Error()[strings.LastIndex(c.err.Error(), ": "):]), env.Message)
			}
		})
	}
}

func TestTimeoutStepComesFirstUnlessStepsAreReplaced(t *testing.T) {
	t.Parallel()
	r := envelope.NewRenderer()
	cause := fmt.Errorf("query: %w", context.DeadlineExceeded)
	env, _ := expect(t, r, envelope.AddNextSteps(cause, "Narrow the date range."), envelope.ExecutionFailed)
	require.Len(t, env.NextSteps, 3)
	assert.Contains(t, env.NextSteps[0], "timed out")
	assert.Equal(t, "Narrow the date range.", env.NextSteps[1])
	assert.Equal(t, envelope.DefaultNextSteps(envelope.ExecutionFailed)[0], env.NextSteps[2])

	env, _ = expect(t, r, envelope.ReplaceNextSteps(cause, "Only this."), envelope.ExecutionFailed)
	assert.Equal(t, []string{"Only this."}, env.NextSteps)

	// A coded timeout keeps its code and still gets the timeout step.
	env, _ = expect(t, r, envelope.Wrap(envelope.NotFound, cause), envelope.NotFound)
	assert.False(t, env.Retryable, "the error's own code decides retryable")
	assert.Contains(t, env.NextSteps[0], "timed out")
}

// WithArgumentErrors is the hook through which a front recognises its
// SDK's argument errors (the mcp-go front: Require*'s texts). Without it,
// core recognises none: the go-sdk front and the proxy run no matcher.
func TestArgumentErrorsHook(t *testing.T) {
	t.Parallel()
	named := func(text string) (envelope.FieldError, bool) {
		f, ok := strings.CutPrefix(text, "missing argument ")
		return envelope.FieldError{Field: f, Rule: "required", Message: text}, ok
	}
	r := envelope.NewRenderer(envelope.WithArgumentErrors(named))
	err := fmt.Errorf("get issue: %w", envelope.AddNextSteps(errors.New("missing argument id"), "Send an id."))
	env, raw := expect(t, r, err, envelope.ValidationError)
	assert.False(t, env.Retryable, "an argument mistake is not worth retrying as is")
	assert.Equal(t, "get issue: missing argument id", env.Message)
	assert.Equal(t, []envelope.FieldError{{Field: "id", Rule: "required", Message: "missing argument id"}}, env.Fields, raw)
	assert.Equal(t, []string{"Send an id.", envelope.DefaultNextSteps(envelope.ValidationError)[0]}, env.NextSteps)

	// Without the hook, neither this text nor mcp-go's is recognised.
	for _, text := range []string{"missing argument id", `required argument "id" not found`} {
		expect(t, envelope.NewRenderer(envelope.WithLogger(discard())), errors.New(text), envelope.InternalError)
	}
	// nil turns it off; a panicking hook is no match.
	expect(t, envelope.NewRenderer(envelope.WithLogger(discard()), envelope.WithArgumentErrors(named), envelope.WithArgumentErrors(nil)),
		errors.New("missing argument id"), envelope.InternalError)
	boom := envelope.WithArgumentErrors(func(string) (envelope.FieldError, bool) { panic("boom") })
	expect(t, envelope.NewRenderer(envelope.WithLogger(discard()), boom), errors.New("missing argument id"), envelope.InternalError)
	// An explicit field list wins over the one read from the text.
	own := envelope.FieldError{Field: "id", Rule: "min", Param: "1", Message: "id must be at least 1"}
	env, _ = expect(t, r, envelope.AddFields(errors.New("missing argument id"), own), envelope.ValidationError)
	assert.Equal(t, []envelope.FieldError{own}, env.Fields)
	// A coded validation error whose text names an argument gets its field.
	env, _ = expect(t, r, envelope.Wrap(envelope.ValidationError, errors.New("missing argument q")), envelope.ValidationError)
	assert.Equal(t, "q", env.Fields[0].Field)
	// Only validation errors get one.
	env, raw = expect(t, r, envelope.Wrap(envelope.NotFound, errors.New("missing argument q")), envelope.NotFound)
	assert.Empty(t, env.Fields, raw)
}

type pgError struct{ Code, Msg string }

func (e *pgError) Error() string { return "pq: " + e.Msg }

func TestMappingsAndMappers(t *testing.T) {
	t.Parallel()
	mapper := envelope.WithMapper(func(err error) (envelope.Code, bool) {
		if pg, ok := envelope.As[*pgError](err); ok && pg.Code == "42P01" {
			return envelope.ExecutionFailed, true
		}
		return "", false
	})
	r := envelope.NewRenderer(mapper, envelope.WithMapping(sql.ErrNoRows, envelope.NotFound))

	env, _ := expect(t, r, fmt.Errorf("load card: %w", sql.ErrNoRows), envelope.NotFound)
	assert.Equal(t, "load card: sql: no rows in result set", env.Message)
	assert.False(t, env.Retryable)

	env, _ = expect(t, r, fmt.Errorf("query: %w", &pgError{"42P01", `relation "users" does not exist`}), envelope.ExecutionFailed)
	assert.Equal(t, `query: pq: relation "users" does not exist`, env.Message, "the agent needs the database's words to fix its SQL")

	expect(t, envelope.NewRenderer(envelope.WithLogger(discard()), mapper), &pgError{"23505", "dup"}, envelope.InternalError)
	expect(t, r, envelope.Wrap(envelope.AccessDenied, sql.ErrNoRows), envelope.AccessDenied) // the error's own code wins

	// A mapper that answers an invalid code, or false, does not classify.
	invalid := envelope.WithMapper(func(error) (envelope.Code, bool) { return "teapot", true })
	declines := envelope.WithMapper(func(error) (envelope.Code, bool) { return envelope.AccessDenied, false })
	expect(t, envelope.NewRenderer(invalid, declines, envelope.WithMapping(sql.ErrNoRows, envelope.NotFound)), sql.ErrNoRows, envelope.NotFound)

	// Mappers run before mappings, in order; the first answer wins.
	first := envelope.WithMapper(func(error) (envelope.Code, bool) { return envelope.ConfigurationError, true })
	second := envelope.WithMapper(func(error) (envelope.Code, bool) { return envelope.AccessDenied, true })
	expect(t, envelope.NewRenderer(envelope.WithMapping(sql.ErrNoRows, envelope.NotFound), first, second), sql.ErrNoRows, envelope.ConfigurationError)
	// Mappings too, in order.
	expect(t, envelope.NewRenderer(envelope.WithMapping(sql.ErrNoRows, envelope.AccessDenied), envelope.WithMapping(sql.ErrNoRows, envelope.NotFound)),
		sql.ErrNoRows, envelope.AccessDenied)
	// A mapping to a retryable code makes it retryable.
	env, _ = expect(t, envelope.NewRenderer(envelope.WithLogger(discard()), envelope.WithMapping(sql.ErrNoRows, envelope.InternalError)), sql.ErrNoRows, envelope.InternalError)
	assert.True(t, env.Retryable)
	// Mappings come before the standard library's own classification.
	expect(t, envelope.NewRenderer(envelope.WithMapping(fs.ErrNotExist, envelope.ConfigurationError)), fs.ErrNotExist, envelope.ConfigurationError)
	// A nil option is ignored.
	expect(t, envelope.NewRenderer(nil, envelope.WithMapping(sql.ErrNoRows, envelope.NotFound)), sql.ErrNoRows, envelope.NotFound)
}

func TestPanickingMapperBecomesAnIncident(t *testing.T) {
	t.Parallel()
	var l logs
	r := envelope.NewRenderer(envelope.WithLogger(l.logger()),
		envelope.WithMapper(func(error) (envelope.Code, bool) { panic("mapper bug at /srv/app/map.go:12") }),
		envelope.WithMapping(sql.ErrNoRows, envelope.NotFound))
	env, raw := expect(t, r, fmt.Errorf("boom: %w", sql.ErrNoRows), envelope.InternalError)
	noLeak(t, raw, "mapper bug", "boom")
	assert.True(t, env.Retryable)
	rec := l.incident(t, env.IncidentID)
	assert.Equal(t, "mcpguard: error mapper panicked", rec["msg"])
	assert.Equal(t, "mapper bug at /srv/app/map.go:12", rec["panic"])
	assert.Equal(t, "boom: sql: no rows in result set", rec["error"])
	assert.Equal(t, "ERROR", rec["level"])
}

func TestWithUnclassified(t *testing.T) {
	t.Parallel()
	err := errors.New("limit must be between 1 and 100, got 500")
	env, raw := expect(t, envelope.NewRenderer(envelope.WithLogger(discard())), err, envelope.InternalError)
	assert.NotContains(t, raw, "limit", "by default nothing the operator did not choose leaves the server")
	assert.True(t, env.Retryable)

	opted := envelope.NewRenderer(envelope.WithUnclassified(envelope.ExecutionFailed))
	env, _ = expect(t, opted, err, envelope.ExecutionFailed)
	assert.Equal(t, err.Error(), env.Message)
	assert.False(t, env.Retryable)
	assert.Empty(t, env.IncidentID)

	_, raw = expect(t, opted, errors.New("connect postgres://app:hunter2@db:5432/shop: refused"), envelope.ExecutionFailed)
	noLeak(t, raw, "hunter2")

	// The other classifications still come first.
	expect(t, opted, fs.ErrPermission, envelope.AccessDenied)
	expect(t, opted.With(envelope.WithArgumentErrors(func(text string) (envelope.FieldError, bool) {
		return envelope.FieldError{Field: "id", Rule: "required"}, text == "no id"
	})), errors.New("no id"), envelope.ValidationError)

	// Internal is the default again.
	back := envelope.NewRenderer(envelope.WithLogger(discard()), envelope.WithUnclassified(envelope.ExecutionFailed), envelope.WithUnclassified(envelope.InternalError))
	expect(t, back, err, envelope.InternalError)

	// Panics stay internal whatever it says.
	env, raw = wire(t, opted.Recovered(context.Background(), "shop_tool", "limit must be", envelope.RecoverOptions{Logger: discard()}))
	assert.Equal(t, envelope.InternalError, env.ErrorType)
	assert.NotContains(t, raw, "limit")
}

func TestInvalidConfigurationPanicsAtConstruction(t *testing.T) {
	t.Parallel()
	assert.PanicsWithValue(t, "envelope: WithMapping with a nil target", func() { envelope.WithMapping(nil, envelope.NotFound) })
	assert.PanicsWithValue(t, "envelope: WithMapping with invalid code nope", func() { envelope.WithMapping(sql.ErrNoRows, "nope") })
	assert.PanicsWithValue(t, "envelope: WithMapper with a nil function", func() { envelope.WithMapper(nil) })
	assert.PanicsWithValue(t, "envelope: WithDefaultNextSteps with invalid code nope", func() { envelope.WithDefaultNextSteps("nope") })
	assert.PanicsWithValue(t, "envelope: WithUnclassified with invalid code teapot", func() { envelope.WithUnclassified("teapot") })
	assert.NotPanics(t, func() {
		envelope.WithMapping(sql.ErrNoRows, envelope.NotFound)
		envelope.WithDefaultNextSteps(envelope.NotFound)
		envelope.WithUnclassified(envelope.ExecutionFailed)
	})
}

// An error whose text the SDK would have shown without mcpguard (Call.Shown:
// go-sdk's typed handlers) stays readable when nothing classifies it, and
// says what its text says, as an error result's text does (ClassifyText):
// what mcpguard-proxy, which has only the text, answers too. What does
// classify it still wins, and an explicit internal_error stays one.
func TestShownErrorsStayReadable(t *testing.T) {
	t.Parallel()
	r := envelope.NewRenderer(envelope.WithLogger(discard()))
	shown := envelope.Call{Tool: "shop_tool", Shown: true}
	raw := errors.New("dial postgres://app:hunter2@db:5432/shop: connection refused")

	env, text := wire(t, r.Error(context.Background(), shown, raw))
	fromText, _ := wire(t, r.Text(context.Background(), shown, raw.Error()))
	assert.Equal(t, fromText, env, "read as the same text in an error result")
	assert.Equal(t, envelope.ExecutionFailed, env.ErrorType, text)
	assert.True(t, env.Retryable, "a refused connection is worth a retry: %s", text)
	assert.Contains(t, env.Message, "connection refused", text)
	assert.Empty(t, env.IncidentID, text)
	noLeak(t, text, "hunter2")

	env, text = wire(t, r.Error(context.Background(), shown, errors.New("quantity must be positive, got -1")))
	assert.Equal(t, envelope.ValidationError, env.ErrorType, text)

	plain := errors.New("reserving stock failed")
	env, text = wire(t, r.Error(context.Background(), shown, plain))
	assert.Equal(t, envelope.ExecutionFailed, env.ErrorType, "text that says nothing stays readable: %s", text)
	assert.Equal(t, envelope.ExecutionFailed.Retryable(), env.Retryable, text)
	assert.Equal(t, r.DefaultNextSteps(envelope.ExecutionFailed, ""), env.NextSteps, text)

	env, text = wire(t, r.Error(context.Background(), shown, envelope.AddNextSteps(raw, "Call shop_status first.")))
	assert.Equal(t, "Call shop_status first.", env.NextSteps[0], "the error's own steps come first: %s", text)
	assert.Len(t, env.NextSteps, 2, "then the text's step, in place of the defaults: %s", text)
	custom := envelope.NewRenderer(envelope.WithLogger(discard()), envelope.WithDefaultNextSteps(envelope.ExecutionFailed, "Tell the on-call."))
	env, text = wire(t, custom.Error(context.Background(), shown, raw))
	assert.Equal(t, "Tell the on-call.", env.NextSteps[len(env.NextSteps)-1], "an operator's default steps still follow: %s", text)
	assert.Len(t, env.NextSteps, 2, text)

	env, text = wire(t, r.Error(context.Background(), call, raw))
	assert.Equal(t, envelope.InternalError, env.ErrorType, "not shown: the text is logged, not sent: %s", text)
	assert.NotContains(t, env.Message, "connection refused", text)

	env, text = wire(t, r.Error(context.Background(), shown, fmt.Errorf("p-9: %w", envelope.ErrNotFound)))
	assert.Equal(t, envelope.NotFound, env.ErrorType, text)
	env, text = wire(t, r.Error(context.Background(), shown, envelope.New(envelope.InternalError, "invariant broken")))
	assert.Equal(t, envelope.InternalError, env.ErrorType, "an explicit internal_error stays one: %s", text)
	env, text = wire(t, envelope.NewRenderer(envelope.WithLogger(discard()), envelope.WithUnclassified(envelope.ConfigurationError)).
		Error(context.Background(), shown, raw))
	assert.Equal(t, envelope.ConfigurationError, env.ErrorType, "WithUnclassified decides first: %s", text)
}
