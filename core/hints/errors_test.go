package hints_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/hints"
)

// A failure's steps, as the envelope a client receives lists them, for a
// Go error whichever side of the renderer the front sits on.
func TestErrorStepsOfGoErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, tool string
		err        error
		code       envelope.Code
		steps      []string
	}{
		// The sentinel is more specific than the code: its hint alone.
		{"own sentinel, wrapped twice", "shop_order", fmt.Errorf("checking token: %w", envelope.Wrap(envelope.AuthenticationFailed, errSessionExpired)),
			envelope.AuthenticationFailed, with([]string{stepAuth}, defaults(envelope.AuthenticationFailed)...)},
		{"own sentinel in a join", "shop_order", envelope.Wrap(envelope.AuthenticationFailed, errors.Join(errors.New("refresh failed"), fmt.Errorf("token: %w", errSessionExpired))),
			envelope.AuthenticationFailed, with([]string{stepAuth}, defaults(envelope.AuthenticationFailed)...)},
		// Other authentication failures get the code's hint.
		{"code", "shop_order", envelope.New(envelope.AuthenticationFailed, "invalid API key"),
			envelope.AuthenticationFailed, with([]string{stepKey}, defaults(envelope.AuthenticationFailed)...)},
		// A bare error that only the renderer's mapping makes not_found.
		{"mapped", "shop_order", fmt.Errorf("order ord_42: %w", errNoRows),
			envelope.NotFound, with([]string{stepSearch}, defaults(envelope.NotFound)...)},
		// The error's own steps come after the tool's, before the defaults.
		{"own steps", "shop_order", envelope.AddNextSteps(envelope.New(envelope.NotFound, "no such order"), "Order IDs start with ord_."),
			envelope.NotFound, with([]string{stepSearch, "Order IDs start with ord_."}, defaults(envelope.NotFound)...)},
		// No hint for the code: the defaults alone.
		{"no hint", "shop_order", envelope.New(envelope.ValidationError, "id is required"),
			envelope.ValidationError, defaults(envelope.ValidationError)},
		// ReplaceDefaults drops the defaults where a hint applies...
		{"replace", "shop_cancel", envelope.New(envelope.AccessDenied, "not your order"),
			envelope.AccessDenied, []string{stepOwner}},
		// ...and only there.
		{"replace, no hint", "shop_cancel", envelope.New(envelope.ValidationError, "id is required"),
			envelope.ValidationError, defaults(envelope.ValidationError)},
	}
	r := newReg(shopRules())
	for _, p := range paths {
		for _, tc := range cases {
			t.Run(p.name+"/"+tc.name, func(t *testing.T) {
				env := wire(t, p.render(context.Background(), r.Lookup(tc.tool), renderer(), callOf(tc.tool, "ord_42"), tc.err))
				assert.Equal(t, tc.code, env.ErrorType)
				assert.Equal(t, tc.steps, env.NextSteps)
			})
		}
	}
}

// The same for failures that came as results: the handler's own error
// text, so no Go error.
func TestErrorStepsOfResults(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, tool, text string
		code             envelope.Code
		steps            []string
	}{
		{"plain text", "shop_order", "upstream exploded", envelope.ExecutionFailed, with([]string{stepStatus}, defaults(envelope.ExecutionFailed)...)},
		{"json", "shop_order", `{"error":"NOT_FOUND","message":"no such order"}`, envelope.NotFound, with([]string{stepSearch}, defaults(envelope.NotFound)...)},
		{"no hint", "shop_order", `{"error":"invalid_argument","message":"id is required"}`, envelope.ValidationError, defaults(envelope.ValidationError)},
		{"replace", "shop_cancel", `{"error":"forbidden","message":"not your order"}`, envelope.AccessDenied, []string{stepOwner}},
	}
	r := newReg(shopRules())
	for _, p := range resultPaths {
		for _, tc := range cases {
			t.Run(p.name+"/"+tc.name, func(t *testing.T) {
				env := wire(t, p.render(context.Background(), r.Lookup(tc.tool), renderer(), callOf(tc.tool, "ord_42"), tc.text))
				assert.Equal(t, tc.code, env.ErrorType)
				assert.Equal(t, tc.steps, env.NextSteps)
				assert.Equal(t, tc.tool, env.Tool)
			})
		}
	}
}

// Several rules for one tool are merged in order; ReplaceDefaults in one
// applies to the hints of all.
func TestRulesForOneToolMerge(t *testing.T) {
	t.Parallel()
	r := newReg([]rule{
		hints.For("shop_order", hints.OnError[shopReq, *shopRes](envelope.NotFound, hints.Call("shop_search", "to find the order's ID"))),
		hints.For(" shop_order ", hints.OnError[shopReq, *shopRes](envelope.NotFound, hints.Text("Ask the user for the order's ID.")), hints.ReplaceDefaults[shopReq, *shopRes]()),
	})
	for _, p := range paths {
		env := wire(t, p.render(context.Background(), r.Lookup("shop_order"), renderer(), callOf("shop_order", "x"), envelope.ErrNotFound))
		assert.Equal(t, []string{stepSearch, "Ask the user for the order's ID."}, env.NextSteps, p.name)
	}
}

// An internal error keeps its incident, and a tool's hint can replace
// its default step, which names the incident.
func TestInternalErrorKeepsIncidentAndHints(t *testing.T) {
	t.Parallel()
	r := newReg([]rule{hints.For("shop_order",
		hints.OnError[shopReq, *shopRes](envelope.InternalError, hints.Call("shop_status", "to see whether the shop is up")),
		hints.ReplaceDefaults[shopReq, *shopRes](),
	)})
	for _, p := range paths {
		env := wire(t, p.render(context.Background(), r.Lookup("shop_order"), renderer(), callOf("shop_order", "x"), errors.New("disk on fire")))
		assert.Equal(t, envelope.InternalError, env.ErrorType, p.name)
		assert.NotEmpty(t, env.IncidentID, p.name)
		assert.NotContains(t, env.Message, "disk on fire", p.name)
		assert.Equal(t, []string{stepStatus}, env.NextSteps, p.name)
	}
	// Merged into an internal error another layer rendered, the default
	// that names the incident goes too.
	rr := renderer()
	env := rr.Internal("shop_order", "inc-7")
	require.Contains(t, fmt.Sprint(env.NextSteps), "inc-7")
	assert.True(t, r.Lookup("shop_order").Merge(context.Background(), shopReq{}, env, rr))
	assert.Equal(t, []string{stepStatus}, wire(t, env).NextSteps)
}

// A hint that repeats a default, or another hint, is listed once, first.
func TestErrorStepsDedupeWithDefaults(t *testing.T) {
	t.Parallel()
	def := defaults(envelope.NotFound)[0]
	r := newReg([]rule{hints.For("shop_order",
		hints.OnError[shopReq, *shopRes](envelope.NotFound, hints.Call("shop_search", "to find the order's ID"), hints.Text("  "+def+"  ")),
		hints.OnError[shopReq, *shopRes](envelope.NotFound, hints.Call("shop_search", "to find the order's ID")),
	)})
	call := callOf("shop_order", "x")
	for _, p := range paths {
		env := wire(t, p.render(context.Background(), r.Lookup("shop_order"), renderer(), call, envelope.New(envelope.NotFound, "no such order")))
		assert.Equal(t, []string{stepSearch, def}, env.NextSteps, p.name)
	}
	for _, p := range resultPaths {
		env := wire(t, p.render(context.Background(), r.Lookup("shop_order"), renderer(), call, `{"error":"not_found","message":"no such order"}`))
		assert.Equal(t, []string{stepSearch, def}, env.NextSteps, p.name)
	}
}

type ctxKey struct{}

// An error function gets the request's context, the SDK's request, the
// code the agent receives, the Go error and its message; its steps come
// in the order the rule declares them.
func TestErrorFuncSeesTheFailure(t *testing.T) {
	t.Parallel()
	type seen struct {
		ctx  any
		req  shopReq
		f    hints.Failure
		errs bool
	}
	var got []seen
	r := newReg([]rule{hints.For("shop_order",
		hints.OnErrorFunc[shopReq, *shopRes](func(ctx context.Context, req shopReq, f hints.Failure) []hints.Step {
			got = append(got, seen{ctx.Value(ctxKey{}), req, f, errors.Is(f.Err, errNoRows)})
			if f.Code != envelope.NotFound {
				return nil
			}
			return []hints.Step{hints.Call("shop_search", "with query=%q to find the order", req.id)}
		}),
		hints.OnError[shopReq, *shopRes](envelope.NotFound, hints.Text("Check the order's ID.")),
	)})
	ctx := context.WithValue(context.Background(), ctxKey{}, "request-ctx")
	for _, p := range paths {
		got = nil
		env := wire(t, p.render(ctx, r.Lookup("shop_order"), renderer(), callOf("shop_order", "ord_42"), fmt.Errorf("order ord_42: %w", errNoRows)))
		assert.Equal(t, with([]string{`Call shop_search with query="ord_42" to find the order.`, "Check the order's ID."}, defaults(envelope.NotFound)...), env.NextSteps, p.name)
		env = wire(t, p.render(ctx, r.Lookup("shop_order"), renderer(), callOf("shop_order", "ord_42"), envelope.New(envelope.AuthenticationFailed, "bad key")))
		assert.Equal(t, defaults(envelope.AuthenticationFailed), env.NextSteps, "nil from a hint function adds nothing (%s)", p.name)

		require.Len(t, got, 2, "the function runs once per failure (%s)", p.name)
		assert.Equal(t, seen{"request-ctx", shopReq{"ord_42"}, hints.Failure{Code: envelope.NotFound, Err: got[0].f.Err, Message: "order ord_42: no rows in result set"}, true}, got[0], p.name)
		assert.Equal(t, envelope.AuthenticationFailed, got[1].f.Code, p.name)
		assert.Equal(t, "bad key", got[1].f.Message, p.name)
	}
	for _, p := range resultPaths {
		got = nil
		env := wire(t, p.render(ctx, r.Lookup("shop_order"), renderer(), callOf("shop_order", "ord_9"), `{"error":"not_found","message":"no such order"}`))
		assert.Equal(t, `Call shop_search with query="ord_9" to find the order.`, env.NextSteps[0], p.name)
		require.Len(t, got, 1, p.name)
		assert.Equal(t, seen{"request-ctx", shopReq{"ord_9"}, hints.Failure{Code: envelope.NotFound, Message: got[0].f.Message}, false}, got[0], "a result carries no Go error (%s)", p.name)
		// Both paths tell the function the result's message: Merge from
		// the envelope, a renderer further in as an envelope.ResultText.
		assert.Equal(t, "no such order", got[0].f.Message, p.name)
	}
}

// A renderer of another front hands no shopReq: the registry's request
// function rebuilds it, and without one the function gets the zero Req.
func TestRequestOfAnotherFront(t *testing.T) {
	t.Parallel()
	var got []shopReq
	rules := []rule{hints.For("shop_order", hints.OnErrorFunc[shopReq, *shopRes](func(_ context.Context, req shopReq, _ hints.Failure) []hints.Step {
		got = append(got, req)
		return []hints.Step{hints.Text("Saw " + req.id + ".")}
	}))}
	call := envelope.Call{Tool: "shop_order", Args: map[string]any{"id": "ord_1"}, Request: "another SDK's request"}
	for _, p := range paths {
		got = nil
		env := wire(t, p.render(context.Background(), newReg(rules).Lookup("shop_order"), renderer(), call, envelope.ErrNotFound))
		assert.Equal(t, "Saw rebuilt:ord_1.", env.NextSteps[0], p.name)
		env = wire(t, p.render(context.Background(), hints.NewRegistry(rules, nil).Lookup("shop_order"), renderer(), call, envelope.ErrNotFound))
		assert.Equal(t, "Saw .", env.NextSteps[0], p.name)
		assert.Equal(t, []shopReq{{"rebuilt:ord_1"}, {}}, got, p.name)
	}
}

// envelope's own sentinels stand for their code: they match every
// failure of it, a Go error the mapping made that code or a result, and no
// other.
func TestEnvelopeSentinelMatchesItsCode(t *testing.T) {
	t.Parallel()
	r := newReg([]rule{hints.For("shop_order",
		hints.OnErrorIs[shopReq, *shopRes](envelope.ErrNotFound, hints.Call("shop_search", "to find the order's ID")),
		hints.OnError[shopReq, *shopRes](envelope.NotFound, hints.Text("Not shown: the sentinel matched.")),
		hints.OnError[shopReq, *shopRes](envelope.ExecutionFailed, hints.Call("shop_status", "to see whether the shop is up")),
	)})
	call := callOf("shop_order", "x")
	for _, p := range paths {
		for _, err := range []error{envelope.New(envelope.NotFound, "gone"), fmt.Errorf("order: %w", errNoRows)} {
			env := wire(t, p.render(context.Background(), r.Lookup("shop_order"), renderer(), call, err))
			assert.Equal(t, with([]string{stepSearch}, defaults(envelope.NotFound)...), env.NextSteps, "%s: %v", p.name, err)
		}
		env := wire(t, p.render(context.Background(), r.Lookup("shop_order"), renderer(), call, envelope.New(envelope.ExecutionFailed, "printer jammed")))
		assert.Equal(t, with([]string{stepStatus}, defaults(envelope.ExecutionFailed)...), env.NextSteps, p.name)
	}
	for _, p := range resultPaths {
		env := wire(t, p.render(context.Background(), r.Lookup("shop_order"), renderer(), call, `{"error":"not_found","message":"gone"}`))
		assert.Equal(t, with([]string{stepSearch}, defaults(envelope.NotFound)...), env.NextSteps, p.name)
		env = wire(t, p.render(context.Background(), r.Lookup("shop_order"), renderer(), call, "printer jammed"))
		assert.Equal(t, with([]string{stepStatus}, defaults(envelope.ExecutionFailed)...), env.NextSteps, p.name)
	}
}

// OnErrorIs on the tool's own sentinel cannot be evaluated on a failure
// that came as a result: the operator is warned, once per tool. A hint on
// one of envelope's sentinels, or a Go error, needs no warning.
func TestOwnSentinelOnAResultIsWarnedAboutOnce(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		hint   hint
		warned bool
	}{
		"own sentinel":      {hints.OnErrorIs[shopReq, *shopRes](errSessionExpired, hints.Text("Sign in again.")), true},
		"envelope sentinel": {hints.OnErrorIs[shopReq, *shopRes](envelope.ErrExecutionFailed, hints.Text("Sign in again.")), false},
		"code":              {hints.OnError[shopReq, *shopRes](envelope.ExecutionFailed, hints.Text("Sign in again.")), false},
	} {
		for _, p := range resultPaths {
			logger, logs := captureLog()
			r := newReg([]rule{hints.For("shop_order", c.hint)}, hints.WithLogger(logger))
			for range 2 {
				env := wire(t, p.render(context.Background(), r.Lookup("shop_order"), renderer(), callOf("shop_order", "x"), "card locked"))
				assert.Equal(t, !c.warned, env.NextSteps[0] == "Sign in again.", "%s/%s: %v", name, p.name, env.NextSteps)
			}
			// A Go error lets the sentinel be evaluated: no warning.
			wire(t, paths[0].render(context.Background(), r.Lookup("shop_order"), renderer(), callOf("shop_order", "x"), errors.New("card locked")))
			var warnings []map[string]any
			for _, rec := range logs.records(t) {
				if rec["level"] == "WARN" {
					warnings = append(warnings, rec)
				}
			}
			if !c.warned {
				assert.Empty(t, warnings, "%s/%s", name, p.name)
				continue
			}
			require.Len(t, warnings, 1, "%s/%s", name, p.name)
			assert.Equal(t, "shop_order", warnings[0]["tool"])
			assert.Contains(t, warnings[0]["msg"], "OnErrorIs")
		}
	}
}

// The steps of ErrorSteps itself, as a front with its own renderer would
// use them, and whether they replace the defaults.
func TestErrorStepsReplace(t *testing.T) {
	t.Parallel()
	r := newReg(shopRules())
	steps, replace := r.Lookup("shop_cancel").ErrorSteps(context.Background(), shopReq{}, hints.Failure{Code: envelope.AccessDenied})
	assert.Equal(t, []string{stepOwner}, steps)
	assert.True(t, replace)
	steps, replace = r.Lookup("shop_cancel").ErrorSteps(context.Background(), shopReq{}, hints.Failure{Code: envelope.NotFound})
	assert.Empty(t, steps)
	assert.False(t, replace, "no hint applies: the defaults stay, so next_steps is never empty")
	steps, replace = r.Lookup("shop_order").ErrorSteps(context.Background(), shopReq{}, hints.Failure{Code: envelope.NotFound})
	assert.Equal(t, []string{stepSearch}, steps)
	assert.False(t, replace)
}
