package hints_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/hints"
)

// Mistakes in the rules show at startup, not on a call.
func TestConstructionPanics(t *testing.T) {
	t.Parallel()
	step := hints.Text("Do something specific.")
	for name, fn := range map[string]func(){
		"empty tool":         func() { hints.For[shopReq, *shopRes](" ") },
		"zero hint":          func() { hints.For("x", hint{}) },
		"zero hint, later":   func() { hints.For("x", hints.OnSuccess[shopReq, *shopRes](step), hint{}) },
		"invalid code":       func() { hints.OnError[shopReq, *shopRes]("nope", step) },
		"no steps":           func() { hints.OnError[shopReq, *shopRes](envelope.NotFound) },
		"empty step":         func() { hints.OnSuccess[shopReq, *shopRes](hints.Text("  ")) },
		"empty step, later":  func() { hints.OnSuccess[shopReq, *shopRes](step, hints.Step{}) },
		"no steps onsuccess": func() { hints.OnSuccess[shopReq, *shopRes]() },
		"no steps onerroris": func() { hints.OnErrorIs[shopReq, *shopRes](errNoRows) },
		"nil target":         func() { hints.OnErrorIs[shopReq, *shopRes](nil, step) },
		"nil error func":     func() { hints.OnErrorFunc[shopReq, *shopRes](nil) },
		"nil success func":   func() { hints.OnSuccessFunc[shopReq, *shopRes](nil) },
		"empty call":         func() { hints.Call(" ", "why") },
		"empty mention":      func() { hints.Mentions[shopReq, *shopRes]("a", " ") },
		"zero rule":          func() { hints.NewRegistry([]rule{{}}, nil) },
	} {
		assert.Panics(t, fn, name)
	}
	// And what is right does not panic.
	assert.NotPanics(t, func() {
		hints.For("x",
			hints.OnError[shopReq, *shopRes](envelope.InternalError, step),
			hints.OnErrorIs[shopReq, *shopRes](errNoRows, step),
			hints.OnSuccess[shopReq, *shopRes](step, hints.Call("y", "")),
			hints.Mentions[shopReq, *shopRes](),
			hints.ReplaceDefaults[shopReq, *shopRes](),
		)
	})
}

func TestStepSentences(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		step       hints.Step
		text, tool string
	}{
		{hints.Call("shop_authenticate", "with your API key, then retry"), stepAuth, "shop_authenticate"},
		{hints.Call(" get_schema ", " to verify table and column names. "), "Call get_schema to verify table and column names.", "get_schema"},
		{hints.Call("execute_query", "with page=%d to continue", 3), "Call execute_query with page=3 to continue.", "execute_query"},
		{hints.Call("shop_export", "with 100% of the rows"), "Call shop_export with 100% of the rows.", "shop_export"},
		{hints.Call("list_tools", ""), "Call list_tools.", "list_tools"},
		{hints.Call("list_tools", "  "), "Call list_tools.", "list_tools"},
		{hints.Call("ping", "now?"), "Call ping now?", "ping"},
		{hints.Call("ping", "now!"), "Call ping now!", "ping"},
		{hints.Text("  Ask the user.  "), "Ask the user.", ""},
		{hints.Text("Ask the user"), "Ask the user", ""},
	} {
		assert.Equal(t, tc.text, tc.step.String())
		assert.Equal(t, tc.tool, tc.step.Tool(), tc.text)
	}
}

func TestRuleReferences(t *testing.T) {
	t.Parallel()
	r := hints.For(" shop_order ",
		hints.OnError[shopReq, *shopRes](envelope.NotFound, hints.Call("shop_search", "first"), hints.Text("Call nothing, this is text.")),
		hints.OnErrorIs[shopReq, *shopRes](errSessionExpired, hints.Call("shop_authenticate", "again"), hints.Call("shop_search", "again")),
		hints.Mentions[shopReq, *shopRes](" shop_status ", "shop_authenticate"),
		hints.OnSuccess[shopReq, *shopRes](hints.Call("shop_export", "next")),
	)
	assert.Equal(t, "shop_order", r.Tool())
	assert.Equal(t, []string{"shop_search", "shop_authenticate", "shop_status", "shop_export"}, r.References())
	assert.Empty(t, hints.For[shopReq, *shopRes]("shop_plain").References())
}

// CheckNames finds every dangling tool name, once, in order.
func TestCheckNames(t *testing.T) {
	t.Parallel()
	tools := []string{"shop_order", "shop_search"}
	good := hints.For("shop_order", hints.OnError[shopReq, *shopRes](envelope.NotFound, hints.Call("shop_search", "to find the order's ID")))
	require.NoError(t, hints.CheckNames(tools, good))
	require.NoError(t, hints.CheckNames[shopReq, *shopRes](tools))

	err := hints.CheckNames(tools,
		good,
		hints.For("shop_order",
			hints.OnErrorIs[shopReq, *shopRes](errSessionExpired, hints.Call("shop_authenticat", "with your API key")),
			hints.OnError[shopReq, *shopRes](envelope.NotFound, hints.Call("shop_authenticat", "first"), hints.Text("Call nothing, this is text.")),
			hints.Mentions[shopReq, *shopRes]("shop_status"),
		),
		hints.For("shop_ordr", hints.OnSuccess[shopReq, *shopRes](hints.Call("shop_search", "next"), hints.Call("shop_lost", "next"))),
		hints.For("shop_order", hints.Mentions[shopReq, *shopRes]("shop_status")),
	)
	require.Error(t, err)
	var refs []hints.ReferenceError
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var re *hints.ReferenceError
		require.ErrorAs(t, e, &re)
		refs = append(refs, *re)
	}
	assert.Equal(t, []hints.ReferenceError{
		{Rule: "shop_order", Tool: "shop_authenticat"},
		{Rule: "shop_order", Tool: "shop_status"},
		{Rule: "shop_ordr", Tool: "shop_ordr"},
		{Rule: "shop_ordr", Tool: "shop_lost"},
	}, refs)
	assert.Equal(t, `hints: hints of tool "shop_order" name unknown tool "shop_authenticat"
hints: hints of tool "shop_order" name unknown tool "shop_status"
hints: rule for unknown tool "shop_ordr" never applies
hints: hints of tool "shop_ordr" name unknown tool "shop_lost"`, err.Error())
}

func TestRegistry(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("t", 70)
	rules := []rule{
		hints.For("shop_a", hints.OnSuccess[shopReq, *shopRes](hints.Text("Next."))),
		hints.For[shopReq, *shopRes]("shop_b"),
		hints.For(long, hints.OnSuccess[shopReq, *shopRes](hints.Text("Long."))),
	}
	r := newReg(rules)
	assert.False(t, r.Empty())
	assert.Equal(t, "shop_a", r.Lookup("shop_a").Name())
	assert.Equal(t, "shop_b", r.Lookup("shop_b").Name(), "a rule without hints still names its tool")
	assert.Equal(t, long, r.Lookup(long).Name())
	for _, name := range []string{"shop_c", "", "shop", strings.Repeat("t", 64), strings.Repeat("u", 70)} {
		assert.Nil(t, r.Lookup(name), "%q has no rule", name)
	}

	got := r.Rules()
	assert.Equal(t, []string{"shop_a", "shop_b", long}, []string{got[0].Tool(), got[1].Tool(), got[2].Tool()})
	got[0] = hints.For[shopReq, *shopRes]("other")
	assert.Equal(t, "shop_a", r.Rules()[0].Tool(), "changing the copy leaves the registry as it was")

	empty := newReg(nil)
	assert.True(t, empty.Empty())
	assert.Nil(t, empty.Lookup("shop_a"))
	assert.Empty(t, empty.Rules())
}

func TestOptions(t *testing.T) {
	t.Parallel()
	assert.Nil(t, hints.NewRegistry[shopReq, *shopRes](nil, nil).Logger(), "nil: slog.Default at the time of each record")
	logger, logs := captureLog()
	r := hints.NewRegistry([]rule{hints.For("shop_a", hints.OnSuccessFunc(func(context.Context, shopReq, *shopRes) []hints.Step { panic("x") }))},
		nil, nil, hints.WithLogger(logger), nil, hints.WithoutSuccessText())
	assert.Same(t, logger, r.Logger())
	assert.False(t, r.SuccessText())
	r.Lookup("shop_a").Success(context.Background(), shopReq{}, nil)
	assert.Len(t, logs.records(t), 1, "panics go to the logger set")
}

// A tool without error hints needs no watch: the context goes on as it
// is, and an error passes through untouched.
func TestWatchOfToolWithoutErrorHints(t *testing.T) {
	t.Parallel()
	r := newReg([]rule{hints.For("shop_a", hints.OnSuccess[shopReq, *shopRes](hints.Text("Next.")))})
	ctx := context.WithValue(context.Background(), ctxKey{}, 1)
	inner, w := r.Lookup("shop_a").Watch(ctx)
	assert.Equal(t, ctx, inner)
	assert.Nil(t, w)
	assert.False(t, w.Pending())
	err := errors.New("boom")
	assert.Same(t, err, w.Attach(err))
	env := wire(t, renderer().Error(inner, callOf("shop_a", "x"), err))
	assert.Equal(t, defaults(envelope.InternalError)[0][:20], env.NextSteps[0][:20])
}

// The Watch tells the front whether a renderer further in asked for the
// steps; once one did, Attach adds nothing more.
func TestWatchPending(t *testing.T) {
	t.Parallel()
	tl := newReg(shopRules()).Lookup("shop_order")
	err := envelope.New(envelope.NotFound, "gone")

	inner, w := tl.Watch(context.Background())
	assert.True(t, w.Pending(), "nothing asked yet")
	attached := w.Attach(err)
	assert.NotSame(t, err, attached)
	assert.Equal(t, err.Error(), attached.Error())
	assert.ErrorIs(t, attached, err)
	assert.True(t, w.Pending(), "an attached function runs only when a renderer classifies the error")

	env := wire(t, renderer().Error(inner, callOf("shop_order", "x"), err))
	assert.Equal(t, stepSearch, env.NextSteps[0])
	assert.False(t, w.Pending())
	assert.Equal(t, err, w.Attach(err), "already asked: nothing to attach")
}

// Merge puts the tool's steps into an envelope rendered without them.
func TestMerge(t *testing.T) {
	t.Parallel()
	rr := renderer(envelope.WithDefaultNextSteps(envelope.AccessDenied, "Ask an admin."))
	r := newReg(shopRules())
	ctx := context.Background()

	// Another layer's envelope, naming no tool, with a step of its own.
	env := &envelope.Envelope{ErrorType: envelope.AccessDenied, Message: "not yours", NextSteps: []string{"Check the owner.", "Ask an admin."}}
	assert.True(t, r.Lookup("shop_cancel").Merge(ctx, shopReq{}, env, rr))
	got := wire(t, env)
	assert.Equal(t, []string{stepOwner, "Check the owner."}, got.NextSteps, "the renderer's defaults go, other steps stay")
	assert.Equal(t, "shop_cancel", got.Tool, "the envelope names the tool")

	env = &envelope.Envelope{ErrorType: envelope.NotFound, Tool: "legacy", Message: "gone", NextSteps: []string{stepSearch, "Look again."}}
	assert.True(t, r.Lookup("shop_order").Merge(ctx, shopReq{}, env, rr))
	assert.Equal(t, []string{stepSearch, "Look again."}, env.NextSteps, "no repeats, defaults kept without ReplaceDefaults")
	assert.Equal(t, "legacy", env.Tool, "a tool already named stays")

	env = &envelope.Envelope{ErrorType: envelope.ValidationError, Message: "bad", NextSteps: []string{"Fix it."}}
	assert.False(t, r.Lookup("shop_cancel").Merge(ctx, shopReq{}, env, rr), "no hint applies")
	assert.Equal(t, []string{"Fix it."}, env.NextSteps)
	assert.Empty(t, env.Tool)
}

// Without WithLogger, records go to slog.Default as it is at the time of
// the record, not of NewRegistry. (Not parallel: it sets slog's default;
// parallel tests only start once the sequential ones are done.)
func TestDefaultLoggerAtTheTimeOfTheRecord(t *testing.T) {
	r := hints.NewRegistry([]rule{hints.For("shop_a", hints.OnSuccessFunc(func(context.Context, shopReq, *shopRes) []hints.Step { panic("x") }))}, nil)
	logger, logs := captureLog()
	prev := slog.Default()
	slog.SetDefault(logger)
	defer slog.SetDefault(prev)
	r.Lookup("shop_a").Success(context.Background(), shopReq{}, nil)
	recs := logs.records(t)
	require.Len(t, recs, 1)
	assert.Equal(t, "OnSuccessFunc", recs[0]["hint"])
}
