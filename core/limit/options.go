package limit

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// Option configures the limit layers of a front: its Timeout, Rate and
// Concurrency. R is the type of the front's tool-call request, which only
// a key function reads. A front re-exports these options under its own
// names (type Option = limit.Option[its request]); an option that does not
// apply to a layer is ignored by it. Each With function panics at once on
// a value no layer could use, with a sentence that names the option.
type Option[R any] func(*Options[R])

// Options is the configuration one front layer reads, the result of
// [Evaluate]: every With option here sets it, and its methods are what a
// layer asks of it. A front never sets its fields itself.
type Options[R any] struct {
	toolTimeouts map[string]time.Duration
	key          func(context.Context, R) string
	keySet       bool
	backoff      [2]time.Duration
	perTool      bool
	maxKeys      int
	maxWait      time.Duration
	store        Store
	storeOpts    StoreOptions
	repeatStore  RepeatStore
	envOpts      []envelope.Option
	logger       *slog.Logger
	holdCap      time.Duration
	holdSet      bool
}

// Evaluate applies opts, in order (a nil one is skipped), over the
// defaults: the key function defaultKey, [DefaultMaxKeys] buckets,
// [DefaultMaxWait] for a slot, the in-process store, one budget for every
// tool, no per-tool timeouts. It panics on a nil defaultKey.
func Evaluate[R any](defaultKey func(context.Context, R) string, opts []Option[R]) *Options[R] {
	if defaultKey == nil {
		panic("limit: Evaluate with a nil default key function")
	}
	o := &Options[R]{key: defaultKey, maxKeys: DefaultMaxKeys, maxWait: DefaultMaxWait}
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
	return o
}

// WithToolTimeout gives one tool its own duration under a Timeout layer;
// zero exempts the tool. Other tools keep the layer's default. It panics
// on a negative duration.
func WithToolTimeout[R any](tool string, d time.Duration) Option[R] {
	if d < 0 {
		panic(fmt.Sprintf("limit: WithToolTimeout(%q, %s): negative duration", tool, d))
	}
	return func(o *Options[R]) {
		if o.toolTimeouts == nil {
			o.toolTimeouts = map[string]time.Duration{}
		}
		o.toolTimeouts[tool] = d
	}
}

// WithKey sets how a Rate layer keys its buckets: calls with the same key
// share a bucket, the empty key is one global bucket. For a Repeats layer
// it names the caller whose counts a call joins, instead of the front's
// own (the principal, else the MCP session, else the connection); the
// empty key is a caller the guard never holds back. It panics on nil.
func WithKey[R any](fn func(ctx context.Context, req R) string) Option[R] {
	if fn == nil {
		panic("limit: WithKey with a nil function")
	}
	return func(o *Options[R]) { o.key, o.keySet = fn, true }
}

// WithRepeatBackoff sets how long a Repeats layer holds a call back after
// its n-th failure (d, by default [DefaultRepeatBackoff]), doubling with
// each further failure up to maxD ([DefaultRepeatMaxBackoff]). It panics
// unless 0 < d <= maxD.
func WithRepeatBackoff[R any](d, maxD time.Duration) Option[R] {
	if d <= 0 || maxD < d {
		panic(fmt.Sprintf("limit: WithRepeatBackoff(%s, %s): need 0 < backoff <= max", d, maxD))
	}
	return func(o *Options[R]) { o.backoff = [2]time.Duration{d, maxD} }
}

// CallerKey is the key function of an explicit [WithKey], or nil: a
// Repeats layer then uses its front's caller.
func (o *Options[R]) CallerKey() func(ctx context.Context, req R) string {
	if o.keySet {
		return o.key
	}
	return nil
}

// WithPerTool gives every tool its own buckets under Rate (one per key and
// tool) and its own n slots under Concurrency, instead of one budget
// shared by every tool behind the layer. A front passes only names of
// tools its server has (see [NewSlots]).
func WithPerTool[R any]() Option[R] { return func(o *Options[R]) { o.perTool = true } }

// WithMaxKeys bounds the buckets a Rate layer keeps in process; the
// default is [DefaultMaxKeys]. It panics unless n >= 1.
func WithMaxKeys[R any](n int) Option[R] {
	if n < 1 {
		panic(fmt.Sprintf("limit: WithMaxKeys(%d): need at least 1", n))
	}
	return func(o *Options[R]) { o.maxKeys = n }
}

// WithMaxWait sets how long a Concurrency layer lets a call wait for a
// slot before refusing it; zero refuses at once. The default is
// [DefaultMaxWait]. It panics on a negative duration.
func WithMaxWait[R any](d time.Duration) Option[R] {
	if d < 0 {
		panic(fmt.Sprintf("limit: WithMaxWait(%s): negative duration", d))
	}
	return func(o *Options[R]) { o.maxWait = d }
}

// WithEnvelopeOptions adds envelope options for a front whose layers
// render their refusals and timeouts themselves, with these options;
// [Options.EnvelopeOptions] returns them all, in order.
func WithEnvelopeOptions[R any](opts ...envelope.Option) Option[R] {
	return func(o *Options[R]) { o.envOpts = append(o.envOpts, opts...) }
}

// WithLogger sets where a Rate layer logs its store's outages (see
// [StoreOptions]), and where a Timeout layer logs a handler that panicked
// after its deadline. The default, nil, is [slog.Default] at the time.
func WithLogger[R any](l *slog.Logger) Option[R] { return func(o *Options[R]) { o.logger = l } }

// WithStore keeps a Rate layer's buckets in s instead of process memory
// (see [Shared]); [WithMaxKeys] then applies to nothing. It panics on nil.
func WithStore[R any](s Store) Option[R] {
	if s == nil {
		panic("limit: WithStore with a nil Store")
	}
	return func(o *Options[R]) { o.store = s }
}

// WithStoreTimeout bounds each call a Rate layer makes to its store; the
// default is [DefaultStoreTimeout]. It panics unless d > 0.
func WithStoreTimeout[R any](d time.Duration) Option[R] {
	if d <= 0 {
		panic(fmt.Sprintf("limit: WithStoreTimeout(%s): need a positive duration", d))
	}
	return func(o *Options[R]) { o.storeOpts.Timeout = d }
}

// WithFailClosed makes a Rate layer refuse a call its store could not
// decide (execution_failed, retryable, retry_after_ms
// [DefaultStoreRetryAfter]) once the store has given no verdict for
// [StoreDownAfter], instead of deciding it by the local bucket of its
// key, the default (see [StoreOptions]). It undoes [WithFailOpen].
func WithFailClosed[R any]() Option[R] {
	return func(o *Options[R]) { o.storeOpts.FailClosed, o.storeOpts.FailOpen = true, false }
}

// WithFailOpen makes a Rate layer allow a call its store could not
// decide, instead of deciding it by the local bucket of its key, the
// default: no limit at all while the store is away, for a limit that
// must never refuse for want of its store. It undoes [WithFailClosed].
func WithFailOpen[R any]() Option[R] {
	return func(o *Options[R]) { o.storeOpts.FailOpen, o.storeOpts.FailClosed = true, false }
}

// WithStoreReplicas says that n replicas share a Rate layer's store: the
// local bucket that decides a call the store missed then allows each
// replica rate / n (in bursts of burst / n, at least 1), so that all of
// them together stay within the rate while the store is away. The
// default, 1, gives each replica the full rate. It panics unless n >= 1.
func WithStoreReplicas[R any](n int) Option[R] {
	if n < 1 {
		panic(fmt.Sprintf("limit: WithStoreReplicas(%d): need at least 1", n))
	}
	return func(o *Options[R]) { o.storeOpts.Replicas = n }
}

// WithOnStoreUnavailable calls fn for each call a Rate layer decided
// without its store, with the store's error: the hook for a metric. It
// is called per call, not per outage, also for the calls not asked of a
// store that is down, with its last error (see [StoreOptions]). A panic
// in fn is dropped. It panics on a nil fn.
func WithOnStoreUnavailable[R any](fn func(ctx context.Context, err error)) Option[R] {
	if fn == nil {
		panic("limit: WithOnStoreUnavailable with a nil function")
	}
	return func(o *Options[R]) { o.storeOpts.OnUnavailable = fn }
}

// WithRepeatStore keeps a Repeats layer's failures in s, shared by every
// replica, instead of process memory. Each store call is bounded by
// [WithStoreTimeout]; a call whose failures the store cannot tell in
// time runs. It panics on nil.
func WithRepeatStore[R any](s RepeatStore) Option[R] {
	if s == nil {
		panic("limit: WithRepeatStore with a nil RepeatStore")
	}
	return func(o *Options[R]) { o.repeatStore = s }
}

// Key is the key function of [WithKey], or the front's default: who a
// call is from.
func (o *Options[R]) Key() func(ctx context.Context, req R) string { return o.key }

// Repeats returns the repeated-failure guard of a Repeats layer: n
// failures within window, per caller, in process (at most
// [WithMaxKeys] calls remembered, and no more than
// [DefaultRepeatMaxKeys]) or in the store of [WithRepeatStore]. It
// panics unless n >= 1 and window > 0, with the sentence every front's
// Repeats documents.
func (o *Options[R]) Repeats(n int, window time.Duration) *Repeats {
	if n < 1 || window <= 0 {
		panic(fmt.Sprintf("limit: Repeats(%d, %s): need at least 1 failure and a positive window", n, window))
	}
	g := NewRepeats(n, window, o.repeatStore, min(o.maxKeys, DefaultRepeatMaxKeys), o.storeOpts.Timeout)
	if o.backoff[0] > 0 {
		g = g.WithBackoff(o.backoff[0], o.backoff[1])
	}
	if g.breaker != nil {
		g.breaker.logger = o.logger
	}
	return g
}

// PerTool reports whether [WithPerTool] was given: a layer then keeps
// state per tool its server has.
func (o *Options[R]) PerTool() bool { return o.perTool }

// Logger is the logger of [WithLogger], nil for [slog.Default] at the
// time.
func (o *Options[R]) Logger() *slog.Logger { return o.logger }

// EnvelopeOptions are the options of every [WithEnvelopeOptions], in
// order.
func (o *Options[R]) EnvelopeOptions() []envelope.Option { return o.envOpts }

// Rate returns how a Rate layer of r calls per second in bursts of burst
// decides a call of tool: by the key of req, from the in-process buckets
// or through the store of [WithStore] (see [Decider]), in tool's own
// buckets with [WithPerTool]. A front passes the name of a tool its
// server has, or "" for a name it does not know yet. It returns nil for
// r == rate.Inf: the layer is off. It panics unless r > 0 and burst >= 1,
// with the sentence every front's Rate documents.
func (o *Options[R]) Rate(r rate.Limit, burst int) func(ctx context.Context, tool string, req R) error {
	if !(r > 0) || burst < 1 {
		panic(fmt.Sprintf("limit: Rate(%v, %d): need a positive rate and a burst of at least 1", float64(r), burst))
	}
	if r == rate.Inf {
		return nil
	}
	so := o.storeOpts
	so.Logger = o.logger
	decide := Decider(o.store, r, burst, o.maxKeys, so)
	key := o.key
	if o.perTool {
		return func(ctx context.Context, tool string, req R) error { return decide(ctx, tool, key(ctx, req), tool) }
	}
	return func(ctx context.Context, tool string, req R) error { return decide(ctx, "", key(ctx, req), tool) }
}

// Slots returns the slots of a Concurrency layer of n: n in all, or n per
// tool with [WithPerTool], each waited for up to [WithMaxWait]. It panics
// unless n >= 1, with the sentence every front's Concurrency documents.
func (o *Options[R]) Slots(n int) *Slots {
	if n < 1 {
		panic(fmt.Sprintf("limit: Concurrency(%d): need at least 1", n))
	}
	return NewSlots(n, o.perTool, o.maxWait)
}

// Timeouts returns how long a Timeout layer of default d gives a call of
// a tool: what [WithToolTimeout] says for it, else d; zero or less means
// no timeout. It panics on a negative d, with the sentence every front's
// Timeout documents.
func (o *Options[R]) Timeouts(d time.Duration) func(tool string) time.Duration {
	if d < 0 {
		panic(fmt.Sprintf("limit: Timeout(%s): negative duration", d))
	}
	tools := o.toolTimeouts
	return func(tool string) time.Duration {
		if t, ok := tools[tool]; ok {
			return t
		}
		return d
	}
}

// Hold runs call in a slot of tool from s, and answers with refuse(err)
// when it gets none: a refusal, or the context's error when the client
// gave up waiting. The slot is released with call's result, the token a
// [Within] inside may have detached (see [Slot.Release]), or at once when
// call panics; the panic goes on. A slot free at once costs a channel
// operation and an atomic load, and call and refuse do not escape.
func Hold[T any](ctx context.Context, s *Slots, tool string, call func() (T, error), refuse func(error) T) (T, error) {
	slot, err := s.Acquire(ctx, tool)
	if err != nil {
		return refuse(err), nil
	}
	return inSlot(slot, call)
}

// inSlot runs call in slot and releases it with call's result, or at once
// when call panics; the panic goes on.
func inSlot[T any](slot Slot, call func() (T, error)) (T, error) {
	returned := false
	defer func() {
		if !returned { // call panicked
			slot.Release(nil)
		}
	}()
	res, err := call()
	returned = true
	slot.Release(res)
	return res, err
}
