package pipeline_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/core/calllog"
	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/pipeline"
)

func TestLayersOrderedFollowsTheAdmission(t *testing.T) {
	l := pipeline.Layers[string]{Declared: []string{"declared"}, Limits: []string{"rate", "concurrency", "timeout"}, Hints: []string{"hints"}, Pins: []string{"pins"}, Repeats: []string{"repeats"}}
	assert.Equal(t, []string{"repeats", "pins", "hints", "rate", "concurrency", "timeout", "declared"}, l.Ordered())
	var all pipeline.Layers[string]
	for _, s := range pipeline.Order() {
		all.Add(s, s.String())
	}
	all.Add(pipeline.Limits, "second limit")
	assert.Equal(t, []string{"log", "recover", "repeats", "redact", "render", "pins", "seal", "hints", "limits", "second limit", "declared"}, all.Ordered())
	assert.Panics(t, func() { all.Add(pipeline.Stage(0), "x") })
	got := pipeline.Order()
	got[0] = pipeline.Declared
	assert.Equal(t, pipeline.Log, pipeline.Order()[0], "Order returns a copy")
	assert.Equal(t, []pipeline.Stage{pipeline.Repeats, pipeline.Pins, pipeline.Hints, pipeline.Limits, pipeline.Declared}, pipeline.Admission())
	assert.Empty(t, pipeline.Layers[int]{}.Ordered())
	got = pipeline.Admission()
	got[0] = pipeline.Declared
	assert.Equal(t, pipeline.Repeats, pipeline.Admission()[0], "Admission returns a copy")
}

func TestHintedRefusalsAreTheStagesInsideHints(t *testing.T) {
	hinted := map[pipeline.Stage]bool{}
	for _, s := range pipeline.Admission() {
		hinted[s] = s.Hinted()
	}
	assert.Equal(t, map[pipeline.Stage]bool{pipeline.Repeats: false, pipeline.Pins: false, pipeline.Hints: false, pipeline.Limits: true, pipeline.Declared: true}, hinted)
	assert.False(t, pipeline.Stage(0).Hinted(), "an unknown stage")
	for _, s := range []pipeline.Stage{pipeline.Log, pipeline.Recover, pipeline.Redact, pipeline.Render, pipeline.Seal} {
		assert.False(t, s.Hinted(), "%v is outside hints", s)
	}
	for s, name := range map[pipeline.Stage]string{pipeline.Repeats: "repeats", pipeline.Pins: "pins", pipeline.Hints: "hints", pipeline.Limits: "limits", pipeline.Declared: "declared", 0: "unknown", 200: "unknown", pipeline.Seal + 1: "unknown", pipeline.Seal: "seal", pipeline.Log: "log"} {
		assert.Equal(t, name, s.String())
	}
}

func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		a    pipeline.Answer
		want pipeline.Outcome
	}{
		{pipeline.Answer{}, pipeline.Success},
		{pipeline.Answer{IsError: true}, pipeline.ErrorResult},
		{pipeline.Answer{Nil: true}, pipeline.Missing},
		{pipeline.Answer{Err: true}, pipeline.GoError},
		{pipeline.Answer{Err: true, Protocol: true}, pipeline.ProtocolError},
		{pipeline.Answer{ResultType: pipeline.ResultTypeInputRequired}, pipeline.InputRequired},
		{pipeline.Answer{InputRequests: true}, pipeline.InputRequired},
		{pipeline.Answer{ResultType: "complete"}, pipeline.Success},
		{pipeline.Answer{ResultType: pipeline.ResultTypeInputRequired, IsError: true}, pipeline.ErrorResult},
		{pipeline.Answer{InputRequests: true, IsError: true}, pipeline.ErrorResult},
		{pipeline.Answer{Task: true, IsError: true}, pipeline.ErrorResult},
		{pipeline.Answer{Task: true}, pipeline.Task},
	} {
		assert.Equal(t, tc.want, pipeline.Decide(tc.a), "%+v", tc.a)
	}
}

func TestPolicies(t *testing.T) {
	for _, o := range []pipeline.Outcome{pipeline.Success, pipeline.InputRequired, pipeline.Task} {
		p := o.Policy()
		assert.False(t, p.Envelope || p.Failure, "%v is not a failure", o)
		assert.True(t, p.DropForgedFailure, "%v drops a forged toolFailure", o)
	}
	assert.True(t, pipeline.Success.Policy().SuccessHints)
	assert.True(t, pipeline.Success.Policy().Releases && pipeline.Task.Policy().Releases, "a success and a task release the guard's counts")
	assert.False(t, pipeline.InputRequired.Policy().Releases, "an input_required round is not over: it releases nothing")
	assert.False(t, pipeline.InputRequired.Policy().SuccessHints, "input_required is no success yet")
	assert.Equal(t, calllog.InputRequired, pipeline.InputRequired.Policy().Log)
	for _, o := range []pipeline.Outcome{pipeline.ErrorResult, pipeline.Missing, pipeline.GoError, pipeline.Panic, pipeline.Refused} {
		p := o.Policy()
		assert.True(t, p.Envelope && p.Failure && !p.Releases, "%v", o)
		assert.Equal(t, pipeline.RedactAll, p.Redact, "%v", o)
		assert.Equal(t, calllog.ToolError, p.Log, "%v", o)
	}
	assert.False(t, pipeline.ProtocolError.Policy().Envelope)
	assert.Equal(t, calllog.ProtocolError, pipeline.Outcome(200).Policy().Log, "an unknown outcome is never a success")
	assert.Equal(t, "input_required", pipeline.InputRequired.String())
	assert.Equal(t, "unknown", pipeline.Outcome(200).String())
	assert.Equal(t, "limits", pipeline.Limits.String())
}

func TestBuildError(t *testing.T) {
	env := &envelope.Envelope{ErrorType: envelope.NotFound, Tool: "t", Message: "no such thing"}
	plain, withMeta := envelope.NewRenderer(), envelope.NewRenderer(envelope.WithToolFailureMeta())
	forged := map[string]any{envelope.ToolFailureMetaKey: map[string]any{"retryable": true}, "trace": "x"}

	s := pipeline.BuildError(pipeline.ErrorInput{Envelope: env, Renderer: plain})
	assert.JSONEq(t, string(env.Marshal()), s.Text)
	assert.Same(t, env, s.Structured)
	assert.Nil(t, s.Meta)

	s = pipeline.BuildError(pipeline.ErrorInput{Envelope: env, Renderer: plain, DeclaresOutput: true, Meta: forged})
	assert.Nil(t, s.Structured, "no structured content for a tool with an output schema")
	assert.Equal(t, map[string]any{"trace": "x"}, s.Meta, "the handler's toolFailure is dropped")
	assert.Contains(t, forged, envelope.ToolFailureMetaKey, "the input is not modified")

	s = pipeline.BuildError(pipeline.ErrorInput{Envelope: env, Renderer: withMeta, Meta: forged})
	assert.Equal(t, "not_found", s.Meta[envelope.ToolFailureMetaKey].(map[string]any)["code"])
	assert.Equal(t, "x", s.Meta["trace"])

	s = pipeline.BuildError(pipeline.ErrorInput{Envelope: env, Renderer: plain, Relay: withMeta, Meta: forged})
	assert.Equal(t, "not_found", s.Meta[envelope.ToolFailureMetaKey].(map[string]any)["code"], "a relay keeps the slot, filled as the envelope says")
	s = pipeline.BuildError(pipeline.ErrorInput{Envelope: env, Renderer: plain, Relay: withMeta})
	assert.Nil(t, s.Meta, "a relay adds no toolFailure the upstream did not send")
}

func TestJoinText(t *testing.T) {
	text := func(s string) (string, bool) { return s, s != "image" }
	assert.Equal(t, "a\nb", pipeline.JoinText([]string{"a", "image", "b"}, text))
	assert.Equal(t, "a\n\nb", pipeline.JoinText([]string{"", "a", "", "b"}, text))
	assert.Empty(t, pipeline.JoinText(nil, text))
}

func TestOutputs(t *testing.T) {
	var o pipeline.Outputs
	assert.False(t, o.Declares("t"))
	o.Learn("t", true)
	o.Learn("u", false)
	assert.True(t, o.Declares("t"))
	assert.False(t, o.Declares("u"))
	o.Learn("t", false)
	assert.False(t, o.Declares("t"), "a later tools/list wins")
}

// An outcome past the last one is "unknown" and gets ProtocolError's
// policy: a consumer that reads a newer outcome than it knows fails safe,
// and neither method indexes past its table.
func TestOutcomePastTheLast(t *testing.T) {
	o := pipeline.Refused + 1
	if got := o.String(); got != "unknown" {
		t.Errorf("String() = %q, want unknown", got)
	}
	if !reflect.DeepEqual(o.Policy(), pipeline.ProtocolError.Policy()) {
		t.Errorf("Policy() = %+v, want ProtocolError's %+v", o.Policy(), pipeline.ProtocolError.Policy())
	}
}
