package hints

import (
	"context"
	"log/slog"
	"slices"
	"sync/atomic"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/redact"
)

// Registry holds the compiled rules of a set of tools and the options they
// run with. An SDK's front looks a call's tool up in it ([Registry.Lookup])
// and lets the [Tool] evaluate the hints. It is immutable and safe for
// concurrent use; one Registry can serve several servers.
type Registry[Req, Res any] struct {
	o     options
	rules []Rule[Req, Res]
	tools map[string]*Tool[Req, Res]
	// lengths has bit n set when a rule's tool name is n bytes long (bit
	// 63 for every length from 63 on), so most calls of tools without a
	// rule skip the map lookup.
	lengths uint64
	refs    *references
}

func lengthBit(n int) uint64 { return 1 << min(n, 63) }

// NewRegistry returns a Registry for rules. Several rules for the same
// tool are merged, in order. request gives the SDK request that an
// [envelope.Call] stands for when its Request field does not hold a Req
// (an error rendered by another front); nil means the zero Req. It panics
// on a zero Rule.
func NewRegistry[Req, Res any](rules []Rule[Req, Res], request func(envelope.Call) Req, opts ...Option) *Registry[Req, Res] {
	r := &Registry[Req, Res]{o: evaluate(opts), tools: map[string]*Tool[Req, Res]{}, refs: &references{}}
	for _, rule := range rules {
		if rule.tool == "" {
			panic("hints: zero Rule; build rules with hints.For")
		}
		r.rules = append(r.rules, rule)
		r.lengths |= lengthBit(len(rule.tool))
		t := r.tools[rule.tool]
		if t == nil {
			t = &Tool[Req, Res]{name: rule.tool, o: &r.o, request: request, refs: r.refs}
			r.tools[rule.tool] = t
		}
		t.add(rule.hints)
	}
	for _, t := range r.tools {
		t.finish()
	}
	return r
}

// Lookup returns the compiled rules of the named tool, or nil when it has
// none. It does not allocate.
func (r *Registry[Req, Res]) Lookup(name string) *Tool[Req, Res] {
	if r.lengths&lengthBit(len(name)) == 0 {
		return nil
	}
	return r.tools[name]
}

// Empty reports whether the registry has no rule, so that a front can
// install no layer at all.
func (r *Registry[Req, Res]) Empty() bool { return len(r.tools) == 0 }

// Rules returns a copy of the registry's rules.
func (r *Registry[Req, Res]) Rules() []Rule[Req, Res] { return slices.Clone(r.rules) }

// Redactor returns the redactor every hint's text goes through.
func (r *Registry[Req, Res]) Redactor() *redact.Redactor { return r.o.redactor }

// Logger returns the logger set with [WithLogger], or nil for
// [slog.Default] at the time of each record.
func (r *Registry[Req, Res]) Logger() *slog.Logger { return r.o.logger }

// SuccessText reports whether success steps go in the result's content
// as well as under [MetaKey] (see [WithoutSuccessText]).
func (r *Registry[Req, Res]) SuccessText() bool { return r.o.successText }

// Watch tells whether an envelope renderer asked a [Tool] for a call's
// error steps through the context [Tool.Watch] returned, so that the front
// does not add them twice. A nil Watch (a tool without error hints) is
// valid: it never was asked, and has nothing to attach.
type Watch[Req, Res any] struct {
	t     *Tool[Req, Res]
	outer context.Context
	used  atomic.Bool
}

// Watch returns ctx carrying the tool's [envelope.StepsFunc], under which
// an envelope renderer further in (the SDK front's envelope layer, a
// validation layer) puts the tool's steps first in the envelope it
// renders, and a Watch over it. For a tool without error hints it returns
// ctx and nil, without allocating. Pass the returned context to the next
// handler only, and read the Watch after that handler returned.
func (t *Tool[Req, Res]) Watch(ctx context.Context) (context.Context, *Watch[Req, Res]) {
	if len(t.errs) == 0 {
		return ctx, nil
	}
	w := &Watch[Req, Res]{t: t, outer: ctx}
	return envelope.ContextWithStepsFunc(ctx, w.steps), w
}

// steps is the StepsFunc a renderer further in calls with the call's
// context.
func (w *Watch[Req, Res]) steps(ctx context.Context, call envelope.Call, code envelope.Code, err error) ([]string, bool) {
	w.used.Store(true)
	return w.t.envelopeSteps(ctx, w.t.requestOf(call), code, err)
}

// Pending reports whether the tool has error hints that no renderer
// further in has asked for: the front then adds them itself, to an error
// it passes on ([Watch.Attach]) or to an error result it renders.
func (w *Watch[Req, Res]) Pending() bool { return w != nil && !w.used.Load() }

// Attach returns err carrying the tool's steps ([envelope.AddStepsFunc])
// for an envelope layer further out, which computes them once it has
// classified err; hint functions get the context Watch was given. It
// returns err as it is when nothing is pending.
func (w *Watch[Req, Res]) Attach(err error) error {
	if !w.Pending() {
		return err
	}
	return envelope.AddStepsFunc(err, func(_ context.Context, call envelope.Call, code envelope.Code, err error) ([]string, bool) {
		return w.t.envelopeSteps(w.outer, w.t.requestOf(call), code, err)
	})
}
