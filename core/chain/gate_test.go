package chain_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/chain"
	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/pipeline"
)

// trail is what the gates and the handler of one call did, in order.
type trail []string

// testGate writes its name into the trail at Admit; it refuses a call
// whose arguments contain refuse, and otherwise passes on the call with
// mark appended to its arguments' text (as seal opens a state or the
// declared check converts a number).
type testGate struct {
	name, refuse, mark string
	trail              *trail
}

func (g testGate) Admit(_ context.Context, q call) (call, error) {
	*g.trail = append(*g.trail, "admit "+g.name)
	if g.refuse != "" && strings.Contains(string(q.Args), g.refuse) {
		return q, envelope.New(envelope.ValidationError, g.name+" refused "+g.refuse)
	}
	q.Args = json.RawMessage(string(q.Args) + g.mark)
	return q, nil
}

// leavingGate is a testGate that also hands out the answer, as seal
// does: it writes the call as it passed it on into the trail.
type leavingGate struct{ testGate }

func (g leavingGate) Leave(_ context.Context, q call, an answer) answer {
	*g.trail = append(*g.trail, "leave "+g.name+" "+string(q.Args))
	return an
}

// gated is a consumer with every stage on and the gates pins, seal (a
// leaving gate) and declared, given out of order; declared refuses
// arguments that contain "bad", pins those that contain "unpinned".
func gated(t *testing.T) (*consumer, *trail) {
	t.Helper()
	tr := &trail{}
	cons := newConsumer(t, nil)
	r := envelope.NewRenderer(envelope.WithLogger(discard))
	ad := jsonAdapter{r: r, tools: map[string]bool{"deploy": true}, records: &cons.records}
	cons.c = chain.New[call, answer](ad, chain.Stages[call]{Recover: true, Render: r},
		chain.Admission[call]{At: pipeline.Declared, Gate: testGate{name: "declared", refuse: "bad", mark: "+d", trail: tr}},
		chain.Admission[call]{At: pipeline.Seal, Gate: leavingGate{testGate{name: "seal", mark: "+s", trail: tr}}},
		chain.Admission[call]{At: pipeline.Pins, Gate: testGate{name: "pins", refuse: "unpinned", trail: tr}},
	)
	return cons, tr
}

func TestGatesRunInPipelineOrderAroundTheHandler(t *testing.T) {
	cons, tr := gated(t)
	assert.Equal(t, []pipeline.Stage{pipeline.Recover, pipeline.Render, pipeline.Pins, pipeline.Seal, pipeline.Declared},
		cons.c.Stages())
	var handled string
	r := cons.do(t, deploy(`{}`), func() answer { return text("deployed") })
	r.ExpectSuccess()
	cons.c.Serve(context.Background(), deploy(`{}`), chain.HandlerFunc[call, answer](func(_ context.Context, q call) answer {
		handled = string(q.Args)
		return text("deployed")
	}), nil)
	assert.Equal(t, "{}+s+d", handled, "the handler receives the call as the last gate passed it on")
	assert.Equal(t, trail{"admit pins", "admit seal", "admit declared", "leave seal {}+s"}, (*tr)[:4],
		"each gate admits in core/pipeline's order; seal leaves with the call as it passed it on, not as declared converted it")
}

func TestAGateRefusesAsTheHandlerWouldFail(t *testing.T) {
	cons, tr := gated(t)
	r := cons.do(t, deploy(`{"region":"bad"}`), func() answer { t.Fatal("the handler ran"); return answer{} })
	r.ExpectError(envelope.ValidationError)
	r.ExpectMessage("declared refused bad")
	assert.Equal(t, trail{"admit pins", "admit seal", "admit declared", `leave seal {"region":"bad"}+s`}, *tr,
		"a gate outside the one that refused hands its refusal out")

	*tr = nil
	r = cons.do(t, deploy(`{"tool":"unpinned"}`), func() answer { t.Fatal("the handler ran"); return answer{} })
	r.ExpectError(envelope.ValidationError)
	assert.Equal(t, trail{"admit pins"}, *tr, "no gate inside the one that refused runs")
}

// panickingGate panics when it admits a call.
type panickingGate struct{}

func (panickingGate) Admit(context.Context, call) (call, error) { panic("the gate panicked") }

func TestAPanickingGateIsAnInternalError(t *testing.T) {
	cons := newConsumer(t, nil)
	ad := jsonAdapter{r: envelope.NewRenderer(envelope.WithLogger(discard)), tools: map[string]bool{"deploy": true}, records: &cons.records}
	cons.c = chain.New[call, answer](ad, chain.Stages[call]{Recover: true, Render: ad.r},
		chain.Admission[call]{At: pipeline.Limits, Gate: panickingGate{}})
	r := cons.do(t, deploy(`{}`), func() answer { t.Fatal("the handler ran"); return answer{} })
	r.ExpectError(envelope.InternalError)
}

// noFailer is an adapter that cannot answer a refusal.
type noFailer struct{ chain.Adapter[call, answer] }

func TestNewRefusesGatesItCannotRun(t *testing.T) {
	ad := jsonAdapter{r: envelope.NewRenderer(), tools: map[string]bool{}, records: &[]record{}}
	for _, at := range []pipeline.Stage{pipeline.Log, pipeline.Recover, pipeline.Repeats, pipeline.Redact, pipeline.Render, 0} {
		assert.Panics(t, func() {
			chain.New[call, answer](ad, chain.Stages[call]{}, chain.Admission[call]{At: at, Gate: panickingGate{}})
		}, "a gate at %v", at)
	}
	assert.Panics(t, func() {
		chain.New[call, answer](ad, chain.Stages[call]{}, chain.Admission[call]{At: pipeline.Declared})
	}, "a nil gate")
	assert.Panics(t, func() {
		chain.New[call, answer](noFailer{ad}, chain.Stages[call]{}, chain.Admission[call]{At: pipeline.Declared, Gate: panickingGate{}})
	}, "an adapter without Failed")
	require.NotPanics(t, func() { chain.New[call, answer](noFailer{ad}, chain.Stages[call]{}) }, "no gates: Failed is not needed")
}

// stepsKey is the context key under which wrappingGate hands the stages
// inside its step, as hints hand a renderer further in the tool's steps.
type stepsKey struct{}

// wrappingGate runs around the stages inside it, as hints do: it hands
// them a context that carries its step, and puts the step in the
// envelope of a Go error they answer with, refusals included.
type wrappingGate struct{ trail *trail }

func (wrappingGate) Admit(context.Context, call) (call, error) {
	panic("the chain ran Admit of a wrapper")
}

func (g wrappingGate) Wrap(ctx context.Context, q call, next chain.Handler[call, answer]) answer {
	*g.trail = append(*g.trail, "wrap "+string(q.Args))
	an := next.Handle(context.WithValue(ctx, stepsKey{}, "call deploy_status"), q)
	if an.err != nil {
		an.err = envelope.AddStepsFunc(an.err, func(context.Context, envelope.Call, envelope.Code, error) ([]string, bool) {
			return []string{"call deploy_status"}, true
		})
	}
	*g.trail = append(*g.trail, "unwrap")
	return an
}

func TestAWrapperRunsAroundTheStagesInside(t *testing.T) {
	tr := &trail{}
	cons := newConsumer(t, nil)
	r := envelope.NewRenderer(envelope.WithLogger(discard))
	ad := jsonAdapter{r: r, tools: map[string]bool{"deploy": true}, records: &cons.records}
	cons.c = chain.New[call, answer](ad, chain.Stages[call]{Recover: true, Render: r},
		chain.Admission[call]{At: pipeline.Declared, Gate: testGate{name: "declared", refuse: "bad", mark: "+d", trail: tr}},
		chain.Admission[call]{At: pipeline.Hints, Gate: wrappingGate{tr}},
		chain.Admission[call]{At: pipeline.Pins, Gate: testGate{name: "pins", refuse: "unpinned", trail: tr}},
	)
	assert.Equal(t, []pipeline.Stage{pipeline.Recover, pipeline.Render, pipeline.Pins, pipeline.Hints, pipeline.Declared}, cons.c.Stages())

	var seen any
	cons.do(t, deploy(`{}`), func() answer { return text("deployed") }).ExpectSuccess()
	cons.c.Serve(context.Background(), deploy(`{}`), chain.HandlerFunc[call, answer](func(ctx context.Context, q call) answer {
		seen = ctx.Value(stepsKey{})
		return text("deployed")
	}), nil)
	assert.Equal(t, "call deploy_status", seen, "the handler runs under the wrapper's context")
	assert.Equal(t, trail{"admit pins", "wrap {}", "admit declared", "unwrap"}, (*tr)[:4])

	*tr = nil
	res := cons.do(t, deploy(`{"region":"bad"}`), func() answer { t.Fatal("the handler ran"); return answer{} })
	res.ExpectError(envelope.ValidationError)
	res.ExpectNextStep("call deploy_status")
	assert.Equal(t, trail{"admit pins", `wrap {"region":"bad"}`, "admit declared", "unwrap"}, *tr,
		"a refusal inside the wrapper is what the wrapper sees answered")

	*tr = nil
	res = cons.do(t, deploy(`{"tool":"unpinned"}`), func() answer { t.Fatal("the handler ran"); return answer{} })
	res.ExpectError(envelope.ValidationError)
	assert.NotContains(t, string(res.Raw), "deploy_status", "a refusal outside the wrapper does not pass through it")
	assert.Equal(t, trail{"admit pins"}, *tr)
}

// A consumer that answers later than it admits runs the gates with Admit:
// in core/pipeline's order, from any index on, stopping at a refusal,
// whose index names the gate that refused.
func TestAdmitRunsTheGatesFromAnIndex(t *testing.T) {
	cons, tr := gated(t)
	q, at, err := cons.c.Admit(context.Background(), deploy(`{}`), 0)
	require.NoError(t, err)
	assert.Equal(t, -1, at)
	assert.Equal(t, "{}+s+d", string(q.Args), "the call as the last gate passed it on")
	assert.Equal(t, trail{"admit pins", "admit seal", "admit declared"}, *tr, "no gate leaves: the consumer hands out the answer")

	*tr = nil
	_, at, err = cons.c.Admit(context.Background(), deploy(`{"region":"bad"}`), 0)
	require.Error(t, err)
	assert.Equal(t, pipeline.Declared, cons.c.Gate(at).At, "the index names the gate that refused")
	assert.Equal(t, 2, at)

	*tr = nil
	q, at, err = cons.c.Admit(context.Background(), deploy(`{"tool":"unpinned"}`), 1)
	require.NoError(t, err, "from the gate after the pins: as after a hold")
	assert.Equal(t, -1, at)
	assert.Equal(t, trail{"admit seal", "admit declared"}, *tr)
	assert.Equal(t, `{"tool":"unpinned"}+s+d`, string(q.Args))
	assert.Panics(t, func() { cons.c.Gate(3) })
}
