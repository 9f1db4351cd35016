package envelope

import (
	"context"
	"log/slog"

	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// StepsFunc computes next steps for an error once the envelope layer has
// classified it, so that they can depend on the code that the layer's own
// mappings give (an error the handler returned bare may become not_found
// only there). It returns the steps to put first and whether they replace
// the code's defaults. err is the error as the handler returned it, so
// [errors.Is] sees its sentinels; for a failure that arrived as an error
// result's text, with no Go error, it is that text as a [ResultText].
//
// A StepsFunc that panics is recovered and logged; the envelope goes out
// without its steps.
type StepsFunc func(ctx context.Context, call Call, code Code, err error) (steps []string, replace bool)

// ResultText is the err a [StepsFunc] receives for a failure that reached
// the renderer as an error result's text (a handler's own isError result)
// rather than as a Go error: the text, before redaction, so that a steps
// function reads the same message on every front.
type ResultText string

// Error returns the text.
func (t ResultText) Error() string { return string(t) }

// AddStepsFunc attaches fn to err: the envelope layer that renders err
// calls fn with the code it classified err as, and puts the steps fn
// returns where [AddNextSteps] would. A layer inside the envelope layer
// uses it when its steps depend on the code. It returns nil when err is nil
// and err itself when fn is nil.
func AddStepsFunc(err error, fn StepsFunc) error {
	if err == nil || fn == nil {
		return err
	}
	return &lazySteps{err: err, fn: fn}
}

// lazySteps carries a StepsFunc in an error chain. It is invisible to the
// error's message and chain.
type lazySteps struct {
	err error
	fn  StepsFunc
}

func (l *lazySteps) Error() string { return l.err.Error() }
func (l *lazySteps) Unwrap() error { return l.err }

type stepsKey struct{}

type stepsHook struct {
	fn   StepsFunc
	next *stepsHook
}

// ContextWithStepsFunc returns a copy of ctx under which [Middleware] and
// [ErrorResult] call fn for every Go error they render, after classifying
// it. A layer that runs outside the envelope layer, and so only ever sees
// rendered envelopes, uses it to key steps on the Go error: the hints layer
// does, so that its sentinel-keyed hints work wherever it sits in the
// chain. Functions installed further in (later) come first.
func ContextWithStepsFunc(ctx context.Context, fn StepsFunc) context.Context {
	if fn == nil {
		return ctx
	}
	prev, _ := ctx.Value(stepsKey{}).(*stepsHook)
	return context.WithValue(ctx, stepsKey{}, &stepsHook{fn: fn, next: prev})
}

// resolveSteps runs the step functions that err carries and that ctx holds,
// and returns err decorated with their steps. Errors without any are
// returned as they are.
// seen is the error the functions get: err, or nil for a failure that
// reached the layer as a result and so carries no Go error.
func (o *options) resolveSteps(ctx context.Context, call Call, code Code, err, seen error) error {
	var fns []StepsFunc
	walkChain(err, func(e error) bool {
		if l, ok := e.(*lazySteps); ok {
			fns = append(fns, l.fn)
		}
		return true
	})
	if ctx != nil {
		h, _ := ctx.Value(stepsKey{}).(*stepsHook)
		for ; h != nil; h = h.next {
			fns = append(fns, h.fn)
		}
	}
	// Apply the last first, so that the first function's steps end up
	// outermost and so first in the envelope.
	raw := seen
	for i := len(fns) - 1; i >= 0; i-- {
		var steps []string
		var replace bool
		p := safe.Call(func() { steps, replace = fns[i](ctx, call, code, raw) })
		if p != nil {
			safe.Log(ctx, o.log(), slog.LevelError, "mcpguard: next-steps function panicked",
				slog.String(logkey.Tool, call.Tool), slog.String(logkey.Panic, safe.Value(p)))
			continue
		}
		if len(steps) > 0 || replace {
			err = &detail{err: err, nextSteps: steps, replaceSteps: replace}
		}
	}
	return err
}

// withoutStepsFunc returns err without the decorations on top of it
// (AddStepsFunc, AddNextSteps and the like), so that logs name the
// handler's error type.
func withoutStepsFunc(err error) error {
	for {
		switch w := err.(type) {
		case *lazySteps:
			err = w.err
		case *detail:
			err = w.err
		default:
			return err
		}
	}
}
