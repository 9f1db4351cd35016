package hints_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/hints"
	"github.com/mcpguard/mcpguard/core/redact"
)

func nilMap() map[string]int { return nil }

// A hint function that panics is contained: the failure or the success
// goes out with the other hints' steps, nothing of the panic reaches the
// client, and the panic is logged with the tool and the kind of hint.
func TestPanickingHintFunctionsAreContained(t *testing.T) {
	t.Parallel()
	panics := []struct {
		name, goType string
		fn           func()
	}{
		{"string", "string", func() { panic("hint exploded at /home/dev/shop/hints.go:12") }},
		{"error", "*errors.errorString", func() { panic(errors.New("boom")) }},
		{"nil", "*runtime.PanicNilError", func() { panic(nil) }},
		{"runtime", "runtime.plainError", func() { nilMap()["x"] = 1 }},
		{"empty Call", "string", func() { hints.Call(" ", "to find it") }},
	}
	for _, p := range panics {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			logger, logs := captureLog()
			r := newReg([]rule{hints.For("shop_order",
				hints.OnErrorFunc[shopReq, *shopRes](func(context.Context, shopReq, hints.Failure) []hints.Step { p.fn(); return nil }),
				hints.OnError[shopReq, *shopRes](envelope.NotFound, hints.Call("shop_search", "to find the order's ID")),
				hints.OnSuccessFunc(func(context.Context, shopReq, *shopRes) []hints.Step { p.fn(); return nil }),
				hints.OnSuccess[shopReq, *shopRes](hints.Text("Show the order.")),
				hints.OnSuccessFunc(func(context.Context, shopReq, *shopRes) []hints.Step { p.fn(); return nil }),
			)}, hints.WithLogger(logger))
			tl := r.Lookup("shop_order")
			for _, path := range paths {
				env := wire(t, path.render(context.Background(), tl, renderer(), callOf("shop_order", "x"), envelope.New(envelope.NotFound, "gone")))
				assert.Equal(t, with([]string{stepSearch}, defaults(envelope.NotFound)...), env.NextSteps, path.name)
				assert.NotContains(t, string(env.Marshal()), "exploded")
				assert.NotContains(t, string(env.Marshal()), "boom")
			}
			steps, text := tl.Success(context.Background(), shopReq{}, &shopRes{})
			assert.Equal(t, []string{"Show the order."}, steps)
			assert.Equal(t, "Next steps:\n- Show the order.", text)

			recs := logs.records(t)
			require.Len(t, recs, 4, "two failures and two success functions, each logged")
			for i, rec := range recs {
				assert.Equal(t, "ERROR", rec["level"])
				assert.Contains(t, rec["msg"], "hint function panicked")
				assert.Equal(t, "shop_order", rec["tool"])
				assert.Equal(t, []string{"OnErrorFunc", "OnErrorFunc", "OnSuccessFunc", "OnSuccessFunc"}[i], rec["hint"])
				assert.Equal(t, p.goType, rec["panic_go_type"])
				assert.NotEmpty(t, rec["panic"])
			}
		})
	}
}

// A success function that only panics leaves no steps: the front adds
// nothing to the result.
func TestPanickingSuccessFuncAlone(t *testing.T) {
	t.Parallel()
	logger, logs := captureLog()
	r := newReg([]rule{hints.For("shop_order",
		hints.OnSuccessFunc(func(context.Context, shopReq, *shopRes) []hints.Step { panic("no") }),
	)}, hints.WithLogger(logger))
	steps, text := r.Lookup("shop_order").Success(context.Background(), shopReq{}, &shopRes{})
	assert.Nil(t, steps)
	assert.Empty(t, text)
	assert.Len(t, logs.records(t), 1)
}

// badCmp is comparable as a type, yet comparing two of them panics when
// they hold slices: errors.Is-style equality on it is user code that
// can blow up.
type badCmp struct{ v any }

func (badCmp) Error() string { return "bad comparison" }

// An OnErrorIs whose match panics is skipped and logged; the other hints
// still apply.
func TestPanickingSentinelMatchIsContained(t *testing.T) {
	t.Parallel()
	logger, logs := captureLog()
	r := newReg([]rule{hints.For("shop_order",
		hints.OnErrorIs[shopReq, *shopRes](badCmp{[]int{1}}, hints.Call("shop_authenticate", "with your API key, then retry")),
		hints.OnError[shopReq, *shopRes](envelope.ExecutionFailed, hints.Call("shop_status", "to see whether the shop is up")),
	)}, hints.WithLogger(logger))
	err := envelope.Wrap(envelope.ExecutionFailed, badCmp{[]int{2}})
	for _, p := range paths {
		env := wire(t, p.render(context.Background(), r.Lookup("shop_order"), renderer(), callOf("shop_order", "x"), err))
		assert.Equal(t, with([]string{stepStatus}, defaults(envelope.ExecutionFailed)...), env.NextSteps, p.name)
	}
	recs := logs.records(t)
	require.NotEmpty(t, recs)
	for _, rec := range recs {
		assert.Equal(t, "OnErrorIs", rec["hint"])
		assert.Equal(t, "shop_order", rec["tool"])
	}
}

// panickyIs is an error whose Is method panics, as user code may.
type panickyIs struct{}

func (panickyIs) Error() string { return "panicky" }
func (panickyIs) Is(target error) bool {
	if target == errSessionExpired {
		panic("Is exploded")
	}
	return false
}

func TestPanickingIsMethod(t *testing.T) {
	t.Parallel()
	r := newReg(shopRules())
	for _, p := range paths {
		env := wire(t, p.render(context.Background(), r.Lookup("shop_order"), renderer(), callOf("shop_order", "x"), envelope.Wrap(envelope.ExecutionFailed, panickyIs{})))
		assert.Equal(t, with([]string{stepStatus}, defaults(envelope.ExecutionFailed)...), env.NextSteps, p.name)
	}
}

// selfCycle is an error whose Unwrap returns itself.
type selfCycle struct{}

func (c *selfCycle) Error() string { return "cycle" }
func (c *selfCycle) Unwrap() error { return c }

// A sentinel hint on an error with a cyclic chain: the walk is bounded, so
// the call ends, with no hint, instead of spinning forever.
func TestSentinelOnACyclicChainEnds(t *testing.T) {
	t.Parallel()
	errMissing := errors.New("missing")
	r := newReg([]rule{hints.For("t_get", hints.OnErrorIs[shopReq, *shopRes](errMissing, hints.Text("Look elsewhere.")))})
	done := make(chan []string, 1)
	go func() {
		steps, _ := r.Lookup("t_get").ErrorSteps(context.Background(), shopReq{}, hints.Failure{Code: envelope.NotFound, Err: envelope.Wrap(envelope.NotFound, &selfCycle{})})
		done <- steps
	}()
	select {
	case steps := <-done:
		assert.Empty(t, steps)
	case <-time.After(5 * time.Minute): // a hang guard, not a timing assertion
		t.Fatal("a cyclic error chain hung the hints")
	}
}

// Every step goes through the registry's redactor; a runaway function
// cannot flood the envelope: at most 32 steps of at most 2,000 bytes, and
// the code's defaults survive.
func TestErrorStepsAreRedactedAndBounded(t *testing.T) {
	t.Parallel()
	const secret = "hunter2hunter2"
	r := newReg([]rule{hints.For("shop_order",
		hints.OnErrorFunc[shopReq, *shopRes](func(context.Context, shopReq, hints.Failure) []hints.Step {
			steps := []hints.Step{
				hints.Text("Connect with postgres://shop:" + secret + "@db.internal/shop and retry."),
				hints.Text(strings.Repeat("x", 1<<20)),
				{},
				hints.Text("  "),
			}
			for i := range 10000 {
				steps = append(steps, hints.Text(fmt.Sprintf("step %d", i)))
			}
			return steps
		}),
	)})
	for _, p := range paths {
		env := wire(t, p.render(context.Background(), r.Lookup("shop_order"), renderer(), callOf("shop_order", "x"), envelope.ErrNotFound))
		raw := string(env.Marshal())
		assert.NotContains(t, raw, secret, p.name)
		want := []string{"", strings.Repeat("x", 2000-len("…")) + "…"}
		for i := range 30 {
			want = append(want, fmt.Sprintf("step %d", i))
		}
		want[0] = env.NextSteps[0]
		assert.Equal(t, with(want, defaults(envelope.NotFound)...), env.NextSteps, p.name)
		assert.Contains(t, env.NextSteps[0], "postgres://", p.name)
		assert.Less(t, len(raw), 8<<10, p.name)
	}
}

// A step is cut to 2,000 bytes, its ellipsis included, on a character
// boundary; one of exactly 2,000 is kept whole. Static and computed steps
// alike, whatever their length before.
func TestStepLengthBound(t *testing.T) {
	t.Parallel()
	exact := strings.Repeat("a", 2000)
	over := strings.Repeat("b", 2001)
	split := "c" + strings.Repeat("é", 1000) // byte 2000 is in the middle of an é
	huge := strings.Repeat("d", 9000)        // beyond what is redacted at all
	want := []string{exact, strings.Repeat("b", 1997) + "…", "c" + strings.Repeat("é", 998) + "…", strings.Repeat("d", 1997) + "…"}
	texts := []hints.Step{hints.Text(exact), hints.Text(over), hints.Text(split), hints.Text(huge)}

	static := newReg([]rule{hints.For("shop_a", hints.OnSuccess[shopReq, *shopRes](texts...))}).Lookup("shop_a")
	steps, _ := static.Success(context.Background(), shopReq{}, nil)
	assert.Equal(t, want, steps, "static")

	fn := newReg([]rule{hints.For("shop_a",
		hints.OnSuccessFunc(func(context.Context, shopReq, *shopRes) []hints.Step { return texts }),
		hints.OnErrorFunc[shopReq, *shopRes](func(context.Context, shopReq, hints.Failure) []hints.Step { return texts }),
	)}).Lookup("shop_a")
	steps, _ = fn.Success(context.Background(), shopReq{}, nil)
	assert.Equal(t, want, steps, "computed")
	steps, _ = fn.ErrorSteps(context.Background(), shopReq{}, hints.Failure{Code: envelope.NotFound})
	assert.Equal(t, want, steps, "error")
}

// The 32 steps are 32 different ones: repeats and blanks do not count.
func TestStepCountBound(t *testing.T) {
	t.Parallel()
	var steps []hints.Step
	for i := range 40 {
		steps = append(steps, hints.Text("again"), hints.Step{}, hints.Text(fmt.Sprintf("step %d", i)))
	}
	tl := newReg([]rule{hints.For("shop_a",
		hints.OnSuccessFunc(func(context.Context, shopReq, *shopRes) []hints.Step { return steps }),
	)}).Lookup("shop_a")
	got, text := tl.Success(context.Background(), shopReq{}, nil)
	want := []string{"again"}
	for i := range 31 {
		want = append(want, fmt.Sprintf("step %d", i))
	}
	assert.Equal(t, want, got)
	assert.Equal(t, 32, strings.Count(text, "\n- "))
}

// The registry's redactor reaches every hint's text: static error and
// success steps and computed ones. WithRedactor(nil) redacts nothing.
func TestRedactor(t *testing.T) {
	t.Parallel()
	emp := redact.Default().With(redact.NewRule("employee-id", `\bEMP-\d{6}\b`, "EMP-[REDACTED]", "emp-"))
	step := hints.Text("Ask EMP-123456 for access.")
	rules := []rule{hints.For("shop_a",
		hints.OnError[shopReq, *shopRes](envelope.AccessDenied, step),
		hints.OnSuccess[shopReq, *shopRes](step),
		hints.OnErrorFunc[shopReq, *shopRes](func(context.Context, shopReq, hints.Failure) []hints.Step { return []hints.Step{step} }),
	), hints.For("shop_b", hints.OnSuccessFunc(func(context.Context, shopReq, *shopRes) []hints.Step { return []hints.Step{step} }))}

	r := newReg(rules, hints.WithRedactor(emp))
	assert.Same(t, emp, r.Redactor())
	for _, p := range paths {
		env := wire(t, p.render(context.Background(), r.Lookup("shop_a"), renderer(), callOf("shop_a", "x"), envelope.ErrAccessDenied))
		assert.Equal(t, "Ask EMP-[REDACTED] for access.", env.NextSteps[0], p.name)
		assert.NotContains(t, string(env.Marshal()), "123456", p.name)
	}
	for _, name := range []string{"shop_a", "shop_b"} {
		steps, text := r.Lookup(name).Success(context.Background(), shopReq{}, nil)
		assert.Equal(t, []string{"Ask EMP-[REDACTED] for access."}, steps, name)
		assert.NotContains(t, text, "123456", name)
	}

	assert.Same(t, redact.Default(), newReg(rules).Redactor(), "the default")
	const token = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
	secret := newReg([]rule{hints.For("shop_a", hints.OnSuccess[shopReq, *shopRes](hints.Text("Use key "+token+".")))})
	steps, _ := secret.Lookup("shop_a").Success(context.Background(), shopReq{}, nil)
	assert.NotContains(t, steps[0], token, "the default redacts")
	none := newReg([]rule{hints.For("shop_a", hints.OnSuccess[shopReq, *shopRes](hints.Text("Use key "+token+".")))}, hints.WithRedactor(nil))
	require.NotNil(t, none.Redactor())
	steps, _ = none.Lookup("shop_a").Success(context.Background(), shopReq{}, nil)
	assert.Equal(t, []string{"Use key " + token + "."}, steps, "a nil redactor redacts nothing")
}
