package chain_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/chain"
	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/core/wiretest"
)

const secret = "sk-live-0123456789abcdef0123456789abcdef"

// consumer is a chain over jsonAdapter with every stage on.
type consumer struct {
	c       *chain.Chain[call, answer]
	records []record
	// ran counts the handler's runs.
	ran int
}

func newConsumer(t *testing.T, mutate func(*chain.Stages[call], *jsonAdapter)) *consumer {
	t.Helper()
	r := envelope.NewRenderer(envelope.WithLogger(discard))
	cons := &consumer{}
	ad := jsonAdapter{r: r, tools: map[string]bool{"deploy": true}, records: &cons.records}
	stage := limit.NewRepeatStage(limit.NewRepeats(3, time.Minute, nil, limit.DefaultRepeatMaxKeys, 0),
		func(_ context.Context, q call) limit.RepeatCall {
			return limit.RepeatCall{Tool: q.Tool, Args: q.Args, Caller: limit.Caller{Session: q.Session}}
		})
	s := chain.Stages[call]{
		Log: true, Recover: true, Repeats: &stage,
		Redact: &chain.Redaction{Failures: r.Redactor()},
		Render: r,
	}
	if mutate != nil {
		mutate(&s, &ad)
	}
	cons.c = chain.New[call, answer](ad, s)
	return cons
}

// do sends one call answered by h, and returns what the client receives.
func (cons *consumer) do(t *testing.T, q call, h func() answer) *wiretest.Response {
	t.Helper()
	an := cons.c.Serve(context.Background(), q, chain.HandlerFunc[call, answer](func(context.Context, call) answer {
		cons.ran++
		return h()
	}), chain.HandlerFunc[call, answer](func(context.Context, call) answer {
		return answer{err: &rpcError{Code: -32602, Message: "unknown tool " + q.Tool}}
	}))
	resp, err := wiretest.Decode(t, q.Tool, wire(an), q.Args)
	require.NoError(t, err)
	return resp
}

func text(s string) answer { return answer{res: &result{Content: []item{{"text", s}}}} }

func deploy(args string) call {
	return call{Tool: "deploy", Args: json.RawMessage(args), Session: "s1"}
}

func TestStagesRunInPipelineOrder(t *testing.T) {
	cons := newConsumer(t, nil)
	assert.Equal(t, []pipeline.Stage{pipeline.Log, pipeline.Recover, pipeline.Repeats, pipeline.Redact, pipeline.Render},
		cons.c.Stages())
	assert.Equal(t, pipeline.Order()[:5], cons.c.Stages(), "the chain's order is core/pipeline's")
	none := newConsumer(t, func(s *chain.Stages[call], _ *jsonAdapter) { *s = chain.Stages[call]{} })
	assert.Empty(t, none.c.Stages())
	assert.Panics(t, func() { chain.New[call, answer](nil, chain.Stages[call]{}) })
}

func TestEveryOutcomeAsTheClientReceivesIt(t *testing.T) {
	forged := map[string]any{envelope.ToolFailureMetaKey: map[string]any{"retryable": true}, "kept": 1}
	cases := []struct {
		name   string
		answer func() answer
		check  func(t *testing.T, r *wiretest.Response)
		want   pipeline.Outcome
	}{
		{"success", func() answer { return text("deployed") }, func(t *testing.T, r *wiretest.Response) {
			r.ExpectSuccess()
			assert.Equal(t, "deployed", r.Text())
		}, pipeline.Success},
		{"success with a forged toolFailure", func() answer {
			an := text("deployed")
			an.res.Meta = forged
			return an
		}, func(t *testing.T, r *wiretest.Response) {
			r.ExpectSuccess()
			assert.NotContains(t, string(r.Raw), envelope.ToolFailureMetaKey)
			assert.Contains(t, string(r.Raw), `"kept":1`)
		}, pipeline.Success},
		{"input_required keeps its type", func() answer {
			an := text("which region?")
			an.res.ResultType = pipeline.ResultTypeInputRequired
			return an
		}, func(t *testing.T, r *wiretest.Response) {
			r.ExpectSuccess()
			assert.Contains(t, string(r.Raw), `"resultType":"input_required"`)
		}, pipeline.InputRequired},
		{"go error", func() answer { return answer{err: envelope.New(envelope.NotFound, "no such region")} },
			func(t *testing.T, r *wiretest.Response) {
				r.ExpectError(envelope.NotFound)
				r.ExpectMessage("no such region")
			}, pipeline.ErrorResult},
		{"go error with a secret", func() answer { return answer{err: errors.New("dial failed: token " + secret)} },
			func(t *testing.T, r *wiretest.Response) {
				r.ExpectError(envelope.InternalError)
				r.NoLeak(secret)
			}, pipeline.ErrorResult},
		{"missing", func() answer { return answer{} }, func(t *testing.T, r *wiretest.Response) {
			r.ExpectError(envelope.InternalError)
		}, pipeline.ErrorResult},
		{"error result", func() answer {
			an := text("region not found")
			an.res.IsError = true
			return an
		}, func(t *testing.T, r *wiretest.Response) {
			r.ExpectError(envelope.NotFound)
			r.ExpectMessage("region not found")
		}, pipeline.ErrorResult},
		{"error result with a secret", func() answer {
			an := text("failed with key " + secret)
			an.res.IsError = true
			return an
		}, func(t *testing.T, r *wiretest.Response) {
			r.ExpectError(envelope.ExecutionFailed)
			r.NoLeak(secret)
		}, pipeline.ErrorResult},
		{"error result the SDK would show", func() answer {
			an := text("ignored")
			an.res.IsError, an.res.shown = true, envelope.New(envelope.ValidationError, "region is required")
			return an
		}, func(t *testing.T, r *wiretest.Response) {
			r.ExpectError(envelope.ValidationError)
			r.ExpectMessage("region is required")
		}, pipeline.ErrorResult},
		{"protocol error stays one, redacted", func() answer {
			return answer{err: &rpcError{Code: -32042, Message: "open " + secret}}
		}, func(t *testing.T, r *wiretest.Response) {
			r.ExpectProtocolError(-32042)
			r.NoLeak(secret)
		}, pipeline.ProtocolError},
		{"panic", func() answer { panic("boom " + secret) }, func(t *testing.T, r *wiretest.Response) {
			r.ExpectError(envelope.InternalError)
			r.NoLeak(secret, "boom")
		}, pipeline.ErrorResult},
		{"unsendable", func() answer {
			an := text("x")
			an.res.unsendable = true
			return an
		}, func(t *testing.T, r *wiretest.Response) {
			r.ExpectError(envelope.InternalError)
		}, pipeline.ErrorResult},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cons := newConsumer(t, nil)
			tc.check(t, cons.do(t, deploy(`{"region":"moon"}`), tc.answer))
			require.Len(t, cons.records, 1, "one record per call")
			assert.Equal(t, tc.want, cons.records[0].outcome, "the record is of what the client received")
		})
	}
}

func TestARenderedEnvelopeIsFinal(t *testing.T) {
	cons := newConsumer(t, nil)
	env := &envelope.Envelope{ErrorType: envelope.AccessDenied, Message: "an inner layer said no", Tool: "deploy",
		NextSteps: []string{"Ask an admin for the deploy role."}}
	r := cons.do(t, deploy(`{}`), func() answer {
		return answer{res: &result{Content: []item{{"text", string(env.Marshal())}}, IsError: true, ours: env}}
	})
	r.ExpectError(envelope.AccessDenied)
	r.ExpectMessage("an inner layer said no")
}

func TestWithoutNormalizationAnErrorResultKeepsItsText(t *testing.T) {
	r := envelope.NewRenderer(envelope.WithoutNormalization(), envelope.WithLogger(discard))
	cons := newConsumer(t, func(s *chain.Stages[call], a *jsonAdapter) { s.Render, a.r = r, r })
	resp := cons.do(t, deploy(`{}`), func() answer {
		an := text("plain failure")
		an.res.IsError = true
		return an
	})
	assert.True(t, resp.IsError())
	assert.Nil(t, resp.Envelope)
	assert.Equal(t, "plain failure", resp.Text())
}

func TestTheGuardHoldsBackTheFourthIdenticalFailure(t *testing.T) {
	cons := newConsumer(t, nil)
	fail := func() answer { return answer{err: envelope.New(envelope.NotFound, "no region moon")} }
	for range 3 {
		cons.do(t, deploy(`{"region":"moon"}`), fail).ExpectError(envelope.NotFound)
	}
	held := cons.do(t, deploy(` { "region" : "moon" } `), fail)
	held.ExpectError(envelope.ExecutionFailed)
	held.ExpectMessage("no region moon")
	assert.Equal(t, 3, cons.ran, "a call held back does not run")

	other := cons.do(t, call{Tool: "deploy", Args: json.RawMessage(`{"region":"moon"}`), Session: "s2"}, fail)
	other.ExpectError(envelope.NotFound)
	assert.Equal(t, 4, cons.ran, "another caller's identical call runs")

	cons.do(t, deploy(`{"region":"mars"}`), func() answer { return text("deployed") }).ExpectSuccess()
	cons.do(t, deploy(`{"region":"moon"}`), fail).ExpectError(envelope.NotFound)
	assert.Equal(t, 6, cons.ran, "a success released the caller's counts")
}

// TestAnInputRequiredRoundNeitherCountsNorReleases: a call answered
// with input_required is not over (its re-send may fail yet, and a
// load-shedding round is the limit's answer): the caller's counts stay
// as they were, so the identical call is still held back after it.
func TestAnInputRequiredRoundNeitherCountsNorReleases(t *testing.T) {
	cons := newConsumer(t, nil)
	fail := func() answer { return answer{err: envelope.New(envelope.NotFound, "no region moon")} }
	ask := func() answer {
		an := text("which region?")
		an.res.ResultType = pipeline.ResultTypeInputRequired
		return an
	}
	cons.do(t, deploy(`{"region":"moon"}`), fail).ExpectError(envelope.NotFound)
	cons.do(t, deploy(`{"region":"moon"}`), ask).ExpectSuccess()
	cons.do(t, deploy(`{"region":"moon"}`), fail).ExpectError(envelope.NotFound)
	cons.do(t, deploy(`{"region":"mars"}`), ask).ExpectSuccess()
	cons.do(t, deploy(`{"region":"moon"}`), fail).ExpectError(envelope.NotFound)
	cons.do(t, deploy(`{"region":"moon"}`), fail).ExpectError(envelope.ExecutionFailed)
	assert.Equal(t, 5, cons.ran, "the call held back after its third failure, input_required rounds between, does not run")
}

func TestAnUnknownToolPassesTheGuard(t *testing.T) {
	cons := newConsumer(t, nil)
	q := call{Tool: "nope", Args: json.RawMessage(`{}`), Session: "s1"}
	for range 5 {
		r := cons.do(t, q, func() answer { t.Fatal("the tool's handler ran"); return answer{} })
		r.ExpectProtocolError(-32602)
	}
	assert.Len(t, cons.records, 5, "an unknown tool's calls are recorded")
}

func TestAnUnknownToolWithoutAGuardStillGoesToItsHandler(t *testing.T) {
	cons := newConsumer(t, func(s *chain.Stages[call], _ *jsonAdapter) { s.Repeats = nil })
	r := cons.do(t, call{Tool: "nope"}, func() answer { t.Fatal("the tool's handler ran"); return answer{} })
	r.ExpectProtocolError(-32602)
}

func TestSuccessesAreRedactedOnlyWhenConfigured(t *testing.T) {
	leaky := func() answer { return text("key " + secret) }
	plain := newConsumer(t, nil)
	assert.Contains(t, plain.do(t, deploy(`{}`), leaky).Text(), secret, "a success is the tool's output")

	red := newConsumer(t, func(s *chain.Stages[call], _ *jsonAdapter) {
		s.Redact.Successes = redact.Default().ForSuccess()
	})
	red.do(t, deploy(`{}`), leaky).NoLeak(secret)
}

func TestAPanickingRecoveryFallsBack(t *testing.T) {
	cons := newConsumer(t, func(_ *chain.Stages[call], a *jsonAdapter) { a.panicRec = true })
	r := cons.do(t, deploy(`{}`), func() answer { panic("boom") })
	require.NotNil(t, r.Envelope, "%s", r.Raw)
	assert.Equal(t, envelope.InternalError, r.Envelope.ErrorType)
	assert.True(t, r.IsError())
}

func TestWithoutRecoverAPanicLeavesTheChain(t *testing.T) {
	cons := newConsumer(t, func(s *chain.Stages[call], _ *jsonAdapter) { s.Recover = false })
	assert.Panics(t, func() { cons.do(t, deploy(`{}`), func() answer { panic("boom") }) })
}

func TestEachStageAloneIsTheSameStage(t *testing.T) {
	r := envelope.NewRenderer(envelope.WithLogger(discard))
	var records []record
	ad := jsonAdapter{r: r, tools: map[string]bool{"deploy": true}, records: &records}
	stage := limit.NewRepeatStage(limit.NewRepeats(1, time.Minute, nil, limit.DefaultRepeatMaxKeys, 0),
		func(_ context.Context, q call) limit.RepeatCall {
			return limit.RepeatCall{Tool: q.Tool, Args: q.Args, Caller: limit.Caller{Session: q.Session}}
		})
	// outermost first, as core/pipeline orders them
	layers := []*chain.Chain[call, answer]{
		chain.Log[call, answer](ad),
		chain.Recover[call, answer](ad),
		chain.Guard[call, answer](ad, &stage),
		chain.Redact[call, answer](ad, chain.Redaction{Failures: r.Redactor()}),
		chain.Render[call, answer](ad, r),
	}
	for i, l := range layers {
		assert.Equal(t, []pipeline.Stage{pipeline.Order()[i]}, l.Stages())
	}
	serve := func(h chain.HandlerFunc[call, answer]) answer {
		for i := len(layers) - 1; i >= 0; i-- {
			l, next := layers[i], h
			h = func(ctx context.Context, q call) answer { return l.Serve(ctx, q, next, nil) }
		}
		return h(context.Background(), deploy(`{"region":"moon"}`))
	}
	ran := 0
	fail := func(context.Context, call) answer {
		ran++
		return answer{err: envelope.New(envelope.NotFound, "no region moon; key "+secret)}
	}
	for _, want := range []envelope.Code{envelope.NotFound, envelope.ExecutionFailed} {
		resp, err := wiretest.Decode(t, "deploy", wire(serve(fail)), json.RawMessage(`{"region":"moon"}`))
		require.NoError(t, err)
		resp.ExpectError(want)
		resp.NoLeak(secret)
	}
	assert.Equal(t, 1, ran, "the layers guard as the chain does")
	resp, err := wiretest.Decode(t, "deploy", wire(serve(func(context.Context, call) answer { panic("boom") })), nil)
	require.NoError(t, err)
	resp.ExpectError(envelope.ExecutionFailed) // still held back: the guard is inside recover
	assert.Len(t, records, 3)

	assert.Panics(t, func() { chain.Guard[call, answer](ad, nil) })
	assert.Panics(t, func() { chain.Render[call, answer](ad, nil) })
}

// A consumer that answers later than it admits (mcpguard-proxy) runs the
// guard in two steps; the zero Run ends nothing.
func TestBeginAndEndGuardAsServeDoes(t *testing.T) {
	cons := newConsumer(t, nil)
	q := deploy(`{"region":"moon"}`)
	fail := answer{err: envelope.New(envelope.NotFound, "no region moon")}
	for range 3 {
		run, _, held := cons.c.Begin(context.Background(), q)
		require.False(t, held)
		resp, err := wiretest.Decode(t, "deploy", wire(run.End(context.Background(), fail)), nil)
		require.NoError(t, err)
		resp.ExpectError(envelope.NotFound)
	}
	_, refused, held := cons.c.Begin(context.Background(), q)
	require.True(t, held, "the fourth identical failure is held back")
	resp, err := wiretest.Decode(t, "deploy", wire(refused), nil)
	require.NoError(t, err)
	resp.ExpectError(envelope.ExecutionFailed)
	assert.Equal(t, []record{{"deploy", pipeline.ErrorResult}, {"deploy", pipeline.ErrorResult}, {"deploy", pipeline.ErrorResult},
		{"deploy", pipeline.ErrorResult}}, cons.records, "one record a call, as the client received it: three at End, the held one at Begin")

	var zero chain.Run[call, answer]
	assert.Equal(t, fail, zero.End(context.Background(), fail))
}

// End, which a consumer calls outside Serve, recovers as Serve does, and
// makes what it returns sendable.
func TestEndRecoversAndMakesTheAnswerSendable(t *testing.T) {
	cons := newConsumer(t, func(_ *chain.Stages[call], a *jsonAdapter) { a.panicRedact = true })
	q := deploy(`{}`)
	run, _, held := cons.c.Begin(context.Background(), q)
	require.False(t, held)
	fail := answer{err: envelope.New(envelope.NotFound, "no such region")} // a failure: redacted
	resp, err := wiretest.Decode(t, "deploy", wire(run.End(context.Background(), fail)), nil)
	require.NoError(t, err)
	resp.ExpectError(envelope.InternalError)
	assert.Equal(t, []record{{"deploy", pipeline.ErrorResult}}, cons.records, "End records what it recovered")

	cons = newConsumer(t, nil)
	run, _, _ = cons.c.Begin(context.Background(), q)
	unsendable := text("ok")
	unsendable.res.unsendable = true
	resp, err = wiretest.Decode(t, "deploy", wire(run.End(context.Background(), unsendable)), nil)
	require.NoError(t, err)
	resp.ExpectError(envelope.InternalError)

	bare := newConsumer(t, func(s *chain.Stages[call], a *jsonAdapter) { s.Recover, a.panicRedact = false, true })
	run, _, _ = bare.c.Begin(context.Background(), q)
	assert.Panics(t, func() { run.End(context.Background(), fail) }, "without Recover a panic leaves End")

	plain := newConsumer(t, func(s *chain.Stages[call], _ *jsonAdapter) { s.Recover = false })
	run, _, _ = plain.c.Begin(context.Background(), q)
	run.End(context.Background(), text("ok"))
	assert.Equal(t, []record{{"deploy", pipeline.Success}}, plain.records, "without Recover, End records too")
}
