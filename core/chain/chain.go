package chain

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// Handler answers a call: the consumer's layers inside the chain and the
// tool's handler. A function type with this method costs a consumer no
// allocation per call (mcp-go builds its chain of layers on every call).
type Handler[Q, A any] interface {
	Handle(ctx context.Context, q Q) A
}

// HandlerFunc is a function as a [Handler].
type HandlerFunc[Q, A any] func(ctx context.Context, q Q) A

// Handle calls f.
func (f HandlerFunc[Q, A]) Handle(ctx context.Context, q Q) A { return f(ctx, q) }

// Reader reads one consumer's tool call (Q) and answer (A), for the
// stages that decide by the call's outcome.
type Reader[Q, A any] interface {
	// Call is the core's view of q: its tool and arguments.
	Call(ctx context.Context, q Q) envelope.Call
	// Read reads a as core/pipeline reads an answer ([pipeline.Decide]).
	Read(ctx context.Context, a A) pipeline.Answer
}

// Recorder is what the Log stage asks of a consumer.
type Recorder[Q, A any] interface {
	// Record writes the call's one record of what the client received,
	// taken d.
	Record(ctx context.Context, q Q, a A, d time.Duration)
}

// Recoverer is what the Recover stage asks of a consumer.
type Recoverer[Q, A any] interface {
	// Recovered answers q after a panic with value v: logged under an
	// incident, answered internal_error.
	Recovered(ctx context.Context, q Q, v any) A
	// Fallback answers q when recovering itself panicked.
	Fallback(q Q) A
	// Sendable is a in a form the consumer sends without running the
	// handler's code again, or the internal_error result of one it
	// cannot send (a result that fails or panics when encoded).
	Sendable(ctx context.Context, q Q, a A) A
}

// Guarder is what the Repeats stage asks of a consumer.
type Guarder[Q, A any] interface {
	Reader[Q, A]
	// Known reports whether the server has q's tool (see [Chain.Serve]).
	Known(ctx context.Context, q Q) bool
	// Envelope is the envelope a's error result carries.
	Envelope(a A) (*envelope.Envelope, bool)
	// Refuse answers q, refused by the repeated-failure guard with err,
	// with the error result that carries err's envelope.
	Refuse(ctx context.Context, q Q, err error) A
}

// Redacter is what the Redact stage asks of a consumer.
type Redacter[Q, A any] interface {
	Reader[Q, A]
	// Redact is a with every position that can carry text redacted by
	// red: the items, structured content and _meta of a result, the
	// message (and data) of an error.
	Redact(red *redact.Redactor, a A) A
}

// Writer is what the Render stage asks of a consumer.
type Writer[Q, A any] interface {
	Reader[Q, A]
	// Err is the Go error of a (the GoError outcome), as the renderer
	// classifies it.
	Err(a A) error
	// Rendered returns a, finished, when a layer of this consumer
	// rendered its error result already; false otherwise.
	Rendered(ctx context.Context, q Q, a A) (A, bool)
	// Shown is the error the SDK itself would have shown the client as
	// the text of a's error result (go-sdk's SetError), nil for none.
	Shown(a A) error
	// Text is the text of a's error result, as core/pipeline.JoinText
	// joins it.
	Text(a A) string
	// Write is the error result that carries env, made from a's own
	// result where a is a result (its _meta and its items that are not
	// text are kept), as core/pipeline.BuildError shapes it.
	Write(ctx context.Context, q Q, env *envelope.Envelope, a A) A
	// DropForged is a without a toolFailure _meta of its own
	// (envelope.DropFailureMeta); a itself when it has none.
	DropForged(a A) A
	// Protocol is a, a JSON-RPC error that stays one, in the form the
	// consumer sends it.
	Protocol(ctx context.Context, q Q, a A) A
}

// Adapter translates one consumer's tool call (Q) and answer (A) for
// every stage of the chain. Each method reads or writes its SDK's types
// (or the wire's JSON); none decides what happens to a call: the chain
// asks them in core/pipeline's order, as the outcome's policy says. A
// consumer that runs one stage as a layer of its own implements only
// that stage's interface ([Recover], [Guard], [Redact], [Render], [Log]).
type Adapter[Q, A any] interface {
	Recorder[Q, A]
	Recoverer[Q, A]
	Guarder[Q, A]
	Redacter[Q, A]
	Writer[Q, A]
}

// Stages are the stages a [Chain] runs; a zero field is off. The chain
// runs them in core/pipeline's order (Log, Recover, Repeats, Redact,
// Render), whatever consumer builds it. The stages of admission inside
// them (pins, seal, hints, limits, declared) are the [Gate]s given to
// [New], and the consumer's layers, the [Handler] the chain calls.
type Stages[Q any] struct {
	// Log calls the adapter's Record once per call, last.
	Log bool
	// Recover turns a panic anywhere inside into an internal_error, and
	// makes every answer sendable.
	Recover bool
	// Repeats is the repeated-failure guard; nil: off.
	Repeats *limit.RepeatStage[Q]
	// Redact redacts every error (failures), and successes when
	// Successes is set.
	Redact *Redaction
	// Render is the renderer of every envelope; nil: off.
	Render *envelope.Renderer
}

// Redaction is what the Redact stage redacts with.
type Redaction struct {
	// Failures redacts every failure and protocol error.
	Failures *redact.Redactor
	// Successes, when not nil, redacts successes too.
	Successes *redact.Redactor
}

// Chain runs the stages that wrap a call's answer in core/pipeline's one
// order, for one consumer: built once, safe for concurrent use.
type Chain[Q, A any] struct {
	log   Recorder[Q, A]
	rec   Recoverer[Q, A]
	guard Guarder[Q, A]
	red   Redacter[Q, A]
	w     Writer[Q, A]
	order []pipeline.Stage
	// logOn and recoverOn: the Log and Recover stages run.
	logOn, recoverOn bool
	repeats          *limit.RepeatStage[Q]
	redact           *Redaction
	r                *envelope.Renderer
	// gates are the stages of admission the chain runs, in order; fail
	// answers a call one refuses.
	gates []gate[Q, A]
	fail  Failer[A]
}

// New returns the chain of s over ad, with the gates of admission as,
// which it runs inside s's stages, in core/pipeline's order, before the
// [Handler] it serves a call with; a call a gate refuses is answered with
// the adapter's [Failer.Failed] of the refusal. It panics on a nil
// adapter, on a nil gate or one at a stage that is not of admission, and
// on gates over an adapter that is not a [Failer].
func New[Q, A any](ad Adapter[Q, A], s Stages[Q], as ...Admission[Q]) *Chain[Q, A] {
	if ad == nil {
		panic("chain: New with a nil adapter")
	}
	c := &Chain[Q, A]{log: ad, rec: ad, guard: ad, red: ad, w: ad, repeats: s.Repeats, redact: s.Redact, r: s.Render,
		logOn: s.Log, recoverOn: s.Recover}
	c.gates, c.fail = gates[Q, A](ad, as)
	on := map[pipeline.Stage]bool{
		pipeline.Log: s.Log, pipeline.Recover: s.Recover, pipeline.Repeats: s.Repeats != nil,
		pipeline.Redact: s.Redact != nil, pipeline.Render: s.Render != nil,
	}
	for _, st := range written {
		if on[st] {
			c.order = append(c.order, st)
		}
	}
	for _, g := range c.gates {
		c.order = append(c.order, g.at)
	}
	return c
}

// written is the order [Chain.Serve] runs its stages in, outermost first.
var written = []pipeline.Stage{pipeline.Log, pipeline.Recover, pipeline.Repeats, pipeline.Redact, pipeline.Render}

// init holds Serve to core/pipeline's one order: a change of the order
// that Serve does not follow fails every program and test that imports
// this package.
func init() {
	var order []pipeline.Stage
	for _, st := range pipeline.Order() {
		if slices.Contains(written, st) {
			order = append(order, st)
		}
	}
	if !slices.Equal(order, written) {
		panic("chain: core/pipeline's order of the stages changed; Serve runs " + fmt.Sprint(written))
	}
}

// Log returns the chain of the Log stage alone, over ad.
func Log[Q, A any](ad Recorder[Q, A]) *Chain[Q, A] {
	return &Chain[Q, A]{log: ad, logOn: true, order: []pipeline.Stage{pipeline.Log}}
}

// Recover returns the chain of the Recover stage alone, over ad.
func Recover[Q, A any](ad Recoverer[Q, A]) *Chain[Q, A] {
	return &Chain[Q, A]{rec: ad, recoverOn: true, order: []pipeline.Stage{pipeline.Recover}}
}

// Guard returns the chain of the Repeats stage alone: the guard s, over
// ad. It panics on a nil s.
func Guard[Q, A any](ad Guarder[Q, A], s *limit.RepeatStage[Q]) *Chain[Q, A] {
	if s == nil {
		panic("chain: Guard with a nil stage")
	}
	return &Chain[Q, A]{guard: ad, repeats: s, order: []pipeline.Stage{pipeline.Repeats}}
}

// Redact returns the chain of the Redact stage alone: r, over ad.
func Redact[Q, A any](ad Redacter[Q, A], r Redaction) *Chain[Q, A] {
	return &Chain[Q, A]{red: ad, redact: &r, order: []pipeline.Stage{pipeline.Redact}}
}

// Render returns the chain of the Render stage alone: r, over ad. It
// panics on a nil r.
func Render[Q, A any](ad Writer[Q, A], r *envelope.Renderer) *Chain[Q, A] {
	if r == nil {
		panic("chain: Render with a nil renderer")
	}
	return &Chain[Q, A]{w: ad, r: r, order: []pipeline.Stage{pipeline.Render}}
}

// Stages returns the stages c runs, outermost first: those of [Stages],
// then the stages of its gates. The slice is a fresh copy.
func (c *Chain[Q, A]) Stages() []pipeline.Stage { return append([]pipeline.Stage(nil), c.order...) }

// Serve answers q through c's stages and h, the layers inside them. A
// call of a tool the server does not have (the adapter's Known, asked
// inside Recover, before the guard) is answered by unknown instead, when
// unknown is not nil and c has a guard's adapter ([New], [Guard]): past
// the repeated-failure guard, which neither holds it back nor counts it,
// as core/pipeline answers an unknown tool before any stage of
// admission; its answer is still rendered, redacted and logged.
//
// The stages are written flat: while the handler runs, the chain holds
// two frames (Serve: log and recover; admit: the guard), and one a gate
// that hands out the answer ([Leaver]), whatever stages it has, so that a
// recovered panic's logged stack stays short; what is done to the answer
// (render, then redact) runs after it returned.
func (c *Chain[Q, A]) Serve(ctx context.Context, q Q, h, unknown Handler[Q, A]) (a A) {
	var start time.Time
	if c.logOn {
		start = time.Now()
	}
	if c.recoverOn {
		completed := false
		defer func() {
			if !completed {
				// A nil recover() here is panic(nil) under
				// GODEBUG=panicnil=1, or runtime.Goexit (t.FailNow in a
				// test), whose results are discarded anyway.
				a = c.recovered(ctx, q, recover())
			}
			if c.logOn {
				c.log.Record(ctx, q, a, time.Since(start))
			}
		}()
		a = c.rec.Sendable(ctx, q, c.admit(ctx, q, h, unknown))
		completed = true
		return a
	}
	a = c.admit(ctx, q, h, unknown)
	if c.logOn {
		c.log.Record(ctx, q, a, time.Since(start))
	}
	return a
}

// recovered answers a panic with value v with an internal_error. It
// never re-panics.
func (c *Chain[Q, A]) recovered(ctx context.Context, q Q, v any) (a A) {
	a = c.rec.Fallback(q)
	// Guarded: a panicking logger or callback must not turn a handled
	// panic into a crash.
	_ = safe.Call(func() { a = c.rec.Recovered(ctx, q, v) })
	return a
}

// admit sends a call of a tool the server does not have to unknown, and
// any other through [Chain.Begin], the gates, the layers inside and
// [Run.End].
func (c *Chain[Q, A]) admit(ctx context.Context, q Q, h, unknown Handler[Q, A]) A {
	if unknown != nil && c.guard != nil && !c.guard.Known(ctx, q) {
		return c.finish(ctx, q, unknown.Handle(ctx, q))
	}
	run, refused, held := c.begin(ctx, q)
	if held {
		return refused
	}
	return run.end(ctx, c.inside(ctx, q, h, 0))
}

// Run is a call [Chain.Begin] admitted, until [Run.End] finishes its
// answer.
type Run[Q, A any] struct {
	c       *Chain[Q, A]
	q       Q
	t       limit.StageTicket
	guarded bool
	start   time.Time // when Begin admitted q, for the Log stage
}

// Begin runs the repeated-failure guard on q: held is true when the guard
// holds q back, and refused is the answer to send instead of running
// anything inside; otherwise run.End finishes what q is answered with.
// [Chain.Serve] runs a call through Begin and End; a consumer that
// answers a call later than it admits it (mcpguard-proxy, which relays
// the call to its server) calls them itself, once each. With the Log
// stage, the call is recorded once: here when the guard holds it back,
// else by End, taken from Begin to End.
func (c *Chain[Q, A]) Begin(ctx context.Context, q Q) (run Run[Q, A], refused A, held bool) {
	run, refused, held = c.begin(ctx, q)
	if held && c.logOn {
		c.log.Record(ctx, q, refused, time.Since(run.start))
	}
	return run, refused, held
}

// begin is Begin without the Log stage, which [Chain.Serve] runs itself.
func (c *Chain[Q, A]) begin(ctx context.Context, q Q) (run Run[Q, A], refused A, held bool) {
	run = Run[Q, A]{c: c, q: q}
	if c.logOn {
		run.start = time.Now()
	}
	if c.repeats == nil {
		return run, refused, false
	}
	t, err := c.repeats.Admit(ctx, q)
	if err != nil {
		return run, c.guard.Refuse(ctx, q, err), true
	}
	run.t, run.guarded = t, true
	return run, refused, false
}

// End finishes a, what the layers inside answered the call: rendered
// (Render) and redacted (Redact), as the chain's stages say; then the
// guard is settled with it, as core/pipeline decides what it is: a
// success or a task releases the caller's counts, an error result is
// counted by its envelope, an input_required round does neither. With Recover, a panic while it finishes a is answered as
// [Chain.Serve] answers one, and what it returns is sendable. With Log,
// the call is recorded with what it returns. It returns what the client
// receives. The zero Run returns a.
func (r Run[Q, A]) End(ctx context.Context, a A) (out A) {
	c := r.c
	if c == nil {
		return a
	}
	if !c.recoverOn {
		out = r.end(ctx, a)
		r.record(ctx, out)
		return out
	}
	completed := false
	defer func() {
		if !completed {
			out = c.recovered(ctx, r.q, recover())
		}
		r.record(ctx, out)
	}()
	out = c.rec.Sendable(ctx, r.q, r.end(ctx, a))
	completed = true
	return out
}

// record is the Log stage of a run End finishes: a, what the client
// receives, taken since Begin.
func (r Run[Q, A]) record(ctx context.Context, a A) {
	if r.c.logOn {
		r.c.log.Record(ctx, r.q, a, time.Since(r.start))
	}
}

// end is End inside Recover.
func (r Run[Q, A]) end(ctx context.Context, a A) A {
	c := r.c
	a = c.finish(ctx, r.q, a)
	if !r.guarded {
		return a
	}
	o := pipeline.Decide(c.guard.Read(ctx, a))
	if o.Policy().Releases {
		c.repeats.Settle(ctx, r.t, r.q, nil)
		return a
	}
	if o != pipeline.ErrorResult {
		return a // not over (input_required), or no envelope the guard can read
	}
	if env, ok := c.guard.Envelope(a); ok {
		c.repeats.Settle(ctx, r.t, r.q, env)
	}
	return a
}

// finish renders (Render) the answer of the layers inside, then redacts
// it (Redact, outside Render).
func (c *Chain[Q, A]) finish(ctx context.Context, q Q, a A) A {
	if c.r != nil {
		a = c.rendered(ctx, q, a)
	}
	if c.redact == nil {
		return a
	}
	red := c.redact.Failures
	switch pipeline.Decide(c.red.Read(ctx, a)).Policy().Redact {
	case pipeline.RedactWithSuccesses:
		if red = c.redact.Successes; red == nil {
			return a
		}
	}
	return c.red.Redact(red.ForCall(c.red.Call(ctx, q).Args), a)
}

// rendered turns what the layers inside answered into what the client
// receives, as core/pipeline decides the outcome: a protocol error stays
// one; a Go error, a missing result and a handler's own error result
// become the error result that carries an envelope; a success, an
// input_required round and a task pass as they are, without a toolFailure
// _meta of their own.
func (c *Chain[Q, A]) rendered(ctx context.Context, q Q, a A) A {
	o := pipeline.Decide(c.w.Read(ctx, a))
	switch o {
	case pipeline.ProtocolError:
		return c.w.Protocol(ctx, q, a)
	case pipeline.GoError:
		return c.w.Write(ctx, q, c.r.Error(ctx, c.w.Call(ctx, q), c.w.Err(a)), a)
	case pipeline.Missing:
		return c.w.Write(ctx, q, c.r.Missing(ctx, c.w.Call(ctx, q)), a)
	case pipeline.ErrorResult:
		return c.normalize(ctx, q, a)
	}
	if o.Policy().DropForgedFailure {
		return c.w.DropForged(a)
	}
	return a
}

// normalize renders a handler's own error result as an envelope, unless a
// layer of the consumer rendered it: the error the SDK would have shown is
// classified, and stays readable if nothing classifies it; any other text
// is classified as text, untrusted.
func (c *Chain[Q, A]) normalize(ctx context.Context, q Q, a A) A {
	if done, ok := c.w.Rendered(ctx, q, a); ok {
		return done
	}
	call := c.w.Call(ctx, q)
	if err := c.w.Shown(a); err != nil {
		call.Shown = true
		return c.w.Write(ctx, q, c.r.Error(ctx, call, err), a)
	}
	if !c.r.Normalizes() {
		return c.w.DropForged(a)
	}
	return c.w.Write(ctx, q, c.r.Text(ctx, call, c.w.Text(a)), a)
}
