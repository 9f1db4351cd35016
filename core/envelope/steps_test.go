package envelope_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// seen is what a StepsFunc was called with.
type seen struct {
	call envelope.Call
	code envelope.Code
	err  error
}

func steps(out *seen, s ...string) envelope.StepsFunc {
	return func(_ context.Context, c envelope.Call, code envelope.Code, err error) ([]string, bool) {
		if out != nil {
			*out = seen{c, code, err}
		}
		return s, false
	}
}

func TestStepsFuncRunsWithTheClassifiedCode(t *testing.T) {
	t.Parallel()
	var got seen
	// The handler returned sql.ErrNoRows-like bare error; the mapping makes
	// it not_found, and the function sees that code and the error as
	// returned.
	bare := errors.New("no rows")
	r := envelope.NewRenderer(envelope.WithMapping(bare, envelope.NotFound))
	c := envelope.Call{Tool: "shop_get", Args: map[string]any{"id": 7}, Request: "the SDK's request"}
	err := envelope.AddStepsFunc(fmt.Errorf("get: %w", bare), steps(&got, "Call shop_search first."))
	env, _ := wire(t, r.Error(context.Background(), c, err))
	assert.Equal(t, envelope.NotFound, got.code)
	assert.Equal(t, c, got.call)
	assert.Same(t, err, got.err, "the error as the handler returned it")
	assert.Equal(t, append([]string{"Call shop_search first."}, envelope.DefaultNextSteps(envelope.NotFound)...), env.NextSteps)
	assert.Equal(t, "get: no rows", env.Message, "the function is invisible in the message")

	replace := func(context.Context, envelope.Call, envelope.Code, error) ([]string, bool) {
		return []string{"Only this."}, true
	}
	env, _ = expect(t, r, envelope.AddStepsFunc(envelope.ErrNotFound, replace), envelope.NotFound)
	assert.Equal(t, []string{"Only this."}, env.NextSteps)
	replaceAll := func(context.Context, envelope.Call, envelope.Code, error) ([]string, bool) { return nil, true }
	env, _ = expect(t, r, envelope.AddStepsFunc(envelope.ErrNotFound, replaceAll), envelope.NotFound)
	assert.Empty(t, env.NextSteps, "replacing with nothing leaves nothing")
	env, _ = expect(t, r, envelope.AddStepsFunc(envelope.ErrNotFound, steps(nil)), envelope.NotFound)
	assert.Equal(t, envelope.DefaultNextSteps(envelope.NotFound), env.NextSteps, "no steps, no change")

	// Also for an internal error, whose log names the handler's error type.
	var l logs
	got = seen{}
	env, _ = expect(t, envelope.NewRenderer(envelope.WithLogger(l.logger())), envelope.AddStepsFunc(errors.New("boom"), steps(&got, "Check the id.")), envelope.InternalError)
	assert.Equal(t, envelope.InternalError, got.code)
	assert.Equal(t, "Check the id.", env.NextSteps[0])
	assert.Equal(t, "*errors.errorString", l.incident(t, env.IncidentID)["error_go_type"])

	assert.NoError(t, envelope.AddStepsFunc(nil, steps(nil)))
	assert.Same(t, envelope.ErrNotFound, envelope.AddStepsFunc(envelope.ErrNotFound, nil))
	wrapped := envelope.AddStepsFunc(envelope.ErrNotFound, steps(nil))
	assert.Equal(t, envelope.ErrNotFound.Error(), wrapped.Error())
	assert.Same(t, envelope.ErrNotFound, errors.Unwrap(wrapped))
}

func TestPanickingStepsFuncIsLoggedAndSkipped(t *testing.T) {
	t.Parallel()
	var l logs
	boom := func(context.Context, envelope.Call, envelope.Code, error) ([]string, bool) { panic("steps bug") }
	r := envelope.NewRenderer(envelope.WithLogger(l.logger()))
	err := envelope.AddStepsFunc(envelope.AddStepsFunc(envelope.ErrNotFound, steps(nil, "Inner.")), boom)
	env, _ := expect(t, r, err, envelope.NotFound)
	assert.Equal(t, append([]string{"Inner."}, envelope.DefaultNextSteps(envelope.NotFound)...), env.NextSteps,
		"the other functions' steps stay")
	recs := l.records(t)
	require.Len(t, recs, 1)
	assert.Equal(t, "mcpguard: next-steps function panicked", recs[0]["msg"])
	assert.Equal(t, "steps bug", recs[0]["panic"])
	assert.Equal(t, "shop_tool", recs[0]["tool"])
	assert.Equal(t, "ERROR", recs[0]["level"])
}

// A StepsFunc installed in the context by a layer outside the envelope
// layer runs after the error's own; functions installed later come first.
func TestContextStepsFunc(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	assert.Equal(t, ctx, envelope.ContextWithStepsFunc(ctx, nil))

	var got seen
	ctx = envelope.ContextWithStepsFunc(ctx, steps(nil, "From the outer context."))
	ctx = envelope.ContextWithStepsFunc(ctx, steps(&got, "From the inner context."))
	own := envelope.AddStepsFunc(envelope.AddStepsFunc(envelope.ErrNotFound, steps(nil, "From the inner error.")), steps(nil, "From the error."))
	var l logs
	r := envelope.NewRenderer(envelope.WithLogger(l.logger()))
	env, _ := wire(t, r.Error(ctx, call, own))
	assert.Equal(t, []string{"From the error.", "From the inner error.", "From the inner context.", "From the outer context.",
		envelope.DefaultNextSteps(envelope.NotFound)[0]}, env.NextSteps)
	assert.Same(t, own, got.err)
	assert.Empty(t, l.records(t), "no step function panicked")

	// A failure that came as text has no Go error to show the functions:
	// they get its text, as a ResultText.
	got = seen{err: errors.New("not called")}
	env, _ = wire(t, r.Text(ctx, call, "upstream refused"))
	assert.Equal(t, envelope.ResultText("upstream refused"), got.err)
	assert.Equal(t, envelope.ExecutionFailed, got.code)
	assert.Equal(t, "From the inner context.", env.NextSteps[0])

	// A nil context holds none.
	//lint:ignore SA1012 the renderer must accept what a careless front passes
	env, _ = wire(t, r.Error(nil, call, envelope.ErrNotFound))
	assert.Equal(t, envelope.DefaultNextSteps(envelope.NotFound), env.NextSteps)
}
