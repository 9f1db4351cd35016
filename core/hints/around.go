package hints

import (
	"context"

	"github.com/mcpguard/mcpguard/core/chain"
	"github.com/mcpguard/mcpguard/core/pipeline"
)

// Answers is what [Around] asks of a front about its answers (A): a
// tool call's result or error, as core/chain passes it.
type Answers[Req, Res, A any] interface {
	// Read reads a as core/pipeline reads an answer.
	Read(ctx context.Context, a A) pipeline.Answer
	// Err is a's Go error.
	Err(a A) error
	// WithErr is a with the Go error err instead of its own.
	WithErr(a A, err error) A
	// Failure is a, an error result no renderer inside gave the tool's
	// steps to, with those steps; inner is the context the stages inside
	// ran under, which carries them (w).
	Failure(ctx, inner context.Context, t *Tool[Req, Res], req Req, a A, w *Watch[Req, Res]) A
	// Success is a, a success, with the tool's success steps.
	Success(ctx context.Context, t *Tool[Req, Res], req Req, a A) A
}

// Around is the hints stage of a call of t, written once for every
// front: it runs next, the stages inside and the handler, under t's
// [Tool.Watch], then gives the tool's steps to what next answered, as
// core/pipeline decides the answer: a Go error carries them for the
// renderer further out, which asks for them once it has classified it
// (so code-keyed hints see the code its mappings give); an error result
// no renderer inside gave them to gets them ([Answers.Failure]); a
// success gets the success steps ([Answers.Success]); a protocol error,
// a missing result, an input_required round (the tool runs again) and a
// task pass as they are.
func Around[Req, Res, A any](ctx context.Context, t *Tool[Req, Res], req Req, next chain.Handler[Req, A], f Answers[Req, Res, A]) A {
	inner, w := t.Watch(ctx)
	a := next.Handle(inner, req)
	switch o := pipeline.Decide(f.Read(ctx, a)); {
	case o == pipeline.GoError:
		return f.WithErr(a, w.Attach(f.Err(a)))
	case o == pipeline.ErrorResult && w.Pending():
		return f.Failure(ctx, inner, t, req, a, w)
	case o.Policy().SuccessHints && t.HasSuccessHints():
		return f.Success(ctx, t, req, a)
	}
	return a
}
