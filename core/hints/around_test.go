package hints_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/core/chain"
	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/hints"
	"github.com/mcpguard/mcpguard/core/pipeline"
)

// shopAnswer is a stand-in front's answer: a result or a Go error.
type shopAnswer struct {
	res     *shopRes
	isError bool
	asks    bool // an input_required round
	err     error
	// by names what Around asked the front for: "failure", "success".
	by string
}

// shopAnswers is the stand-in front's Answers.
type shopAnswers struct{}

func (shopAnswers) Read(_ context.Context, a shopAnswer) pipeline.Answer {
	if a.err != nil {
		return pipeline.Answer{Err: true}
	}
	ans := pipeline.Answer{Nil: a.res == nil, IsError: a.isError}
	if a.asks {
		ans.ResultType = pipeline.ResultTypeInputRequired
	}
	return ans
}
func (shopAnswers) Err(a shopAnswer) error                     { return a.err }
func (shopAnswers) WithErr(a shopAnswer, err error) shopAnswer { a.err = err; return a }
func (shopAnswers) Success(_ context.Context, _ *tool, _ shopReq, a shopAnswer) shopAnswer {
	a.by = "success"
	return a
}
func (shopAnswers) Failure(_, inner context.Context, _ *tool, _ shopReq, a shopAnswer, w *hints.Watch[shopReq, *shopRes]) shopAnswer {
	a.by = "failure"
	env := renderer().Error(inner, callOf("shop_order", "x"), envelope.New(envelope.NotFound, "gone"))
	if len(env.NextSteps) == 0 || env.NextSteps[0] != stepSearch || w.Pending() {
		a.by = "failure without the watch"
	}
	return a
}

// answering is a handler that answers a, recording the context it ran
// under.
func answering(a shopAnswer, ran *context.Context) chain.Handler[shopReq, shopAnswer] {
	return chain.HandlerFunc[shopReq, shopAnswer](func(ctx context.Context, _ shopReq) shopAnswer {
		*ran = ctx
		return a
	})
}

// Around decides by core/pipeline's outcome what the tool's steps go to:
// a Go error carries them to the renderer outside, an error result no
// renderer gave them gets them from the front, a success its success
// steps, and an input_required round, a missing result and an error
// result a renderer inside already gave them pass as they are.
func TestAroundGivesTheStepsByTheOutcome(t *testing.T) {
	t.Parallel()
	rules := append(shopRules(), hints.For("shop_order", hints.OnSuccess[shopReq, *shopRes](hints.Text("Track it."))))
	tl := newReg(rules).Lookup("shop_order")
	req := shopReq{id: "ord_1"}
	var ran context.Context

	a := hints.Around(context.Background(), tl, req, answering(shopAnswer{err: envelope.New(envelope.NotFound, "gone")}, &ran), shopAnswers{})
	env := wire(t, renderer().Error(context.Background(), callOf("shop_order", "x"), a.err))
	assert.Equal(t, stepSearch, env.NextSteps[0], "a Go error carries the steps to the renderer outside")
	inner := renderer().Error(ran, callOf("shop_order", "x"), envelope.New(envelope.NotFound, "gone"))
	assert.Equal(t, stepSearch, inner.NextSteps[0], "the stages inside run under the watch")

	a = hints.Around(context.Background(), tl, req, answering(shopAnswer{res: &shopRes{}, isError: true}, &ran), shopAnswers{})
	assert.Equal(t, "failure", a.by, "an error result no renderer gave the steps to")

	rendered := chain.HandlerFunc[shopReq, shopAnswer](func(ctx context.Context, _ shopReq) shopAnswer {
		_ = renderer().Error(ctx, callOf("shop_order", "x"), errors.New("boom")) // a renderer inside asks for the steps
		return shopAnswer{res: &shopRes{}, isError: true}
	})
	a = hints.Around(context.Background(), tl, req, rendered, shopAnswers{})
	assert.Empty(t, a.by, "a renderer inside gave the steps already")

	a = hints.Around(context.Background(), tl, req, answering(shopAnswer{res: &shopRes{rows: 1}}, &ran), shopAnswers{})
	assert.Equal(t, "success", a.by)

	for _, pass := range []shopAnswer{{res: &shopRes{}, asks: true}, {}} {
		a = hints.Around(context.Background(), tl, req, answering(pass, &ran), shopAnswers{})
		assert.Empty(t, a.by, "an input_required round and a missing result pass as they are")
	}

	plain := newReg(shopRules()).Lookup("shop_order") // no success hints
	a = hints.Around(context.Background(), plain, req, answering(shopAnswer{res: &shopRes{rows: 1}}, &ran), shopAnswers{})
	assert.Empty(t, a.by, "a tool without success hints: a success passes as it is")
}
