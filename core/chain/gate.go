package chain

import (
	"context"
	"fmt"
	"slices"

	"github.com/mcpguard/mcpguard/core/pipeline"
)

// Gate is a stage of admission (pins, seal, limits, declared) that the
// chain runs itself, inside the stages that wrap the answer and before
// the [Handler] it is given: it admits a call, or refuses it.
type Gate[Q any] interface {
	// Admit returns q as the stages inside receive it (seal opens the
	// requestState q echoes; the declared check converts a lossless
	// spelling of a number), or the error that refuses it: the call is
	// then answered as if its handler had returned that error, and
	// nothing inside runs.
	Admit(ctx context.Context, q Q) (Q, error)
}

// Leaver is a [Gate] that also hands out what the stages inside answered
// (seal seals the requestState of a result).
type Leaver[Q, A any] interface {
	Gate[Q]
	// Leave returns a, what the stages inside answered q (q as Admit
	// passed it on), as the gate hands it out.
	Leave(ctx context.Context, q Q, a A) A
}

// Wrapper is a [Gate] that runs around the stages inside it rather than
// before them (hints watch a call, then put the tool's steps in what it
// answers): [Chain.Serve] calls Wrap in its place, never Admit. Admit
// is what [Chain.Admit] runs, for a consumer that hands out the answer
// itself, where nothing runs around the rest.
type Wrapper[Q, A any] interface {
	Gate[Q]
	// Wrap answers q: with what next, the stages inside and the handler,
	// answers, called at most once, under ctx or a context derived from
	// it.
	Wrap(ctx context.Context, q Q, next Handler[Q, A]) A
}

// Admission is a [Gate] at its stage: [New] runs the gates it is given in
// core/pipeline's order of their stages, whatever order they come in.
type Admission[Q any] struct {
	// At is the gate's stage: one of pipeline.Admission's, or
	// pipeline.Seal.
	At pipeline.Stage
	// Gate admits or refuses each call.
	Gate Gate[Q]
}

// Failer is what a [Gate]'s refusal asks of a consumer.
type Failer[A any] interface {
	// Failed is the answer of a handler that returned err, which the
	// Render stage renders as any other Go error.
	Failed(err error) A
}

// gate is an Admission as the chain runs it.
type gate[Q, A any] struct {
	at    pipeline.Stage
	admit Gate[Q]
	leave Leaver[Q, A]  // nil: the gate hands the answer out as it is
	wrap  Wrapper[Q, A] // not nil: the gate runs around the stages inside
}

// gates returns the gates of as in core/pipeline's order, and the
// Failer they refuse through. It panics on a nil gate, a stage that is
// not one of admission, or an adapter that cannot fail a call.
func gates[Q, A any](ad any, as []Admission[Q]) ([]gate[Q, A], Failer[A]) {
	if len(as) == 0 {
		return nil, nil
	}
	f, ok := ad.(Failer[A])
	if !ok {
		panic(fmt.Sprintf("chain: New with gates and an adapter (%T) without Failed", ad))
	}
	out := make([]gate[Q, A], 0, len(as))
	for _, a := range as {
		if a.Gate == nil {
			panic("chain: New with a nil gate at " + a.At.String())
		}
		if a.At != pipeline.Seal && !slices.Contains(pipeline.Admission(), a.At) || a.At == pipeline.Repeats {
			panic("chain: New with a gate at " + a.At.String() + ", which is not a stage of admission")
		}
		l, _ := a.Gate.(Leaver[Q, A])
		w, _ := a.Gate.(Wrapper[Q, A])
		out = append(out, gate[Q, A]{at: a.At, admit: a.Gate, leave: l, wrap: w})
	}
	order := pipeline.Order()
	slices.SortStableFunc(out, func(x, y gate[Q, A]) int {
		return slices.Index(order, x.at) - slices.Index(order, y.at)
	})
	return out, f
}

// inside answers q through the chain's gates, in order, then h. A gate
// that hands out the answer (a Leaver) or runs around the rest (a
// Wrapper) holds a frame while h runs; the others do not.
func (c *Chain[Q, A]) inside(ctx context.Context, q Q, h Handler[Q, A], from int) A {
	for i := from; i < len(c.gates); i++ {
		g := &c.gates[i]
		if g.wrap != nil {
			return g.wrap.Wrap(ctx, q, rest[Q, A]{c, h, i + 1})
		}
		in, err := g.admit.Admit(ctx, q)
		if err != nil {
			return c.fail.Failed(err)
		}
		q = in
		if g.leave != nil {
			return g.leave.Leave(ctx, q, c.inside(ctx, q, h, i+1))
		}
	}
	return h.Handle(ctx, q)
}

// rest is what a [Wrapper] wraps: the gates after it, then h.
type rest[Q, A any] struct {
	c    *Chain[Q, A]
	h    Handler[Q, A]
	from int
}

func (r rest[Q, A]) Handle(ctx context.Context, q Q) A { return r.c.inside(ctx, q, r.h, r.from) }

// Admit runs the gates of c, in the order [New] put them in, from the one
// at index from on, as [Chain.Serve] runs them before its handler, for a
// consumer that answers a call later than it admits it (mcpguard-proxy,
// after [Chain.Begin]): it returns q as the last gate passed it on and
// at -1, or the index of the gate that refused it ([Chain.Gate] says
// which) and its refusal. Such a consumer may hold a call a limit refused
// until the limit admits it, then run Admit again from at+1. Admit runs
// no Leave nor Wrap: the consumer that calls it hands out the answer.
func (c *Chain[Q, A]) Admit(ctx context.Context, q Q, from int) (out Q, at int, err error) {
	for i := from; i < len(c.gates); i++ {
		in, err := c.gates[i].admit.Admit(ctx, q)
		if err != nil {
			return q, i, err
		}
		q = in
	}
	return q, -1, nil
}

// Gate returns c's gate at index i, as [Chain.Admit] counts them, with
// its stage. It panics on an index out of range.
func (c *Chain[Q, A]) Gate(i int) Admission[Q] {
	return Admission[Q]{At: c.gates[i].at, Gate: c.gates[i].admit}
}
