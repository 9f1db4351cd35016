package middleware

import (
	"context"
	"log/slog"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/core/chain"
	coredeclared "github.com/mcpguard/mcpguard/core/declared"
	"github.com/mcpguard/mcpguard/core/pin"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/recover"
	"github.com/mcpguard/mcpguard/redact"
	"github.com/mcpguard/mcpguard/validate"
)

// Option configures [Default].
type Option func(*defaultOptions)

type defaultOptions struct {
	logger   *slog.Logger
	logOpts  []LogOption
	envOpts  []envelope.Option
	recOpts  []recover.Option
	redOpts  []redact.Option
	redactor *redact.Redactor
	limits   []server.ToolHandlerMiddleware
	loggerOn bool
	// repeats replaces the repeated-failure guard; repeatsSet says it was
	// given (nil: off).
	repeats    server.ToolHandlerMiddleware
	repeatsSet bool
	// declaredOff turns declared-schema enforcement off for the chain;
	// declaredExcept, for these tools only.
	declaredOff    bool
	declaredExcept []string
	// state configures the requestState sealing layer (seal.go).
	state stateOptions
	// hintRules (WithHints) or hints (WithHintRegistry) configure the
	// hints layer of the chain.
	hintRules []hints.Rule
	hints     *hints.Registry
	// pins holds calls to tools whose definition is not approved (pin.go).
	pins *pin.Pins
}

// WithLogger turns on the [Logging] layer with logger and sends the
// recover and envelope layers' incident records there too.
func WithLogger(l *slog.Logger, opts ...LogOption) Option {
	return func(o *defaultOptions) { o.logger, o.logOpts, o.loggerOn = l, opts, l != nil }
}

// WithEnvelopeOptions configures the envelope layer: mappings, mappers,
// default next steps.
func WithEnvelopeOptions(opts ...envelope.Option) Option {
	return func(o *defaultOptions) { o.envOpts = append(o.envOpts, opts...) }
}

// WithRecoverOptions configures the recover layer.
func WithRecoverOptions(opts ...recover.Option) Option {
	return func(o *defaultOptions) { o.recOpts = append(o.recOpts, opts...) }
}

// WithRedactOptions configures the redact layer, e.g. to redact successful
// results too. To change the rules, use [WithRedactor], which reaches every
// layer.
func WithRedactOptions(opts ...redact.Option) Option {
	return func(o *defaultOptions) { o.redOpts = append(o.redOpts, opts...) }
}

// WithRedactor sets the one redactor of the whole chain: the redact layer,
// every envelope the chain renders (panics, errors, legacy error results),
// and the layers inside it that render by themselves (validate's field
// errors and value previews, hints). Extend the defaults, or switch a rule
// off by name:
//
//	middleware.WithRedactor(redact.Default().With(myRule))
func WithRedactor(r *redact.Redactor) Option {
	return func(o *defaultOptions) { o.redactor = r }
}

// WithLimits puts layers that bound calls (limit.Rate, limit.Concurrency,
// limit.Timeout) into the chain, in the order given, right inside the
// envelope layer: recover still catches a panic that limit.Timeout hands
// back from the handler's goroutine, and a refused call skips every layer
// you add after Default. Give them cheapest refusal first:
//
//	middleware.WithLimits(limit.Rate(10, 20), limit.Concurrency(8), limit.Timeout(5*time.Second))
//
// limit.Concurrency counts a handler that limit.Timeout answered for until
// that handler really returns, in either order of the two.
func WithLimits(layers ...server.ToolHandlerMiddleware) Option {
	return func(o *defaultOptions) { o.limits = append(o.limits, layers...) }
}

// WithRepeats replaces the chain's repeated-failure guard, by default
// limit.Repeats(limit.DefaultRepeatFailures, limit.DefaultRepeatWindow),
// with layer, such as one whose count every replica shares:
//
//	middleware.WithRepeats(limit.Repeats(3, 10*time.Minute, limit.WithRepeatStore(store)))
//
// A nil layer turns the guard off.
func WithRepeats(layer server.ToolHandlerMiddleware) Option {
	return func(o *defaultOptions) { o.repeats, o.repeatsSet = layer, true }
}

// WithHints puts the hints layer of rules into the chain where
// core/pipeline's admission order puts it, as gosdk.WithHints does: inside
// recover and envelope, outside the limits and the declared check, so that
// their refusals get the tool's steps too, as any failure of the tool
// does (a call the repeated-failure guard holds back gets none of its
// own: it quotes its last failure's). Its hint texts go through the
// chain's redactor and its warnings to the chain's logger. Several
// WithHints are merged. A hints.Middleware added after Default sees only
// what reaches it: the handler's failures and successes, not refusals.
// It panics on a zero Rule.
func WithHints(rules ...hints.Rule) Option {
	for _, r := range rules {
		if r.Tool() == "" {
			panic("middleware.WithHints: zero Rule; build rules with hints.For")
		}
	}
	return func(o *defaultOptions) { o.hintRules = append(o.hintRules, rules...) }
}

// WithHintRegistry is [WithHints] for a registry built with its own
// options (hints.WithoutSuccessText, hints.WithLogger, hints.WithRedactor).
// It panics on a nil registry.
func WithHintRegistry(r *hints.Registry) Option {
	if r == nil {
		panic("middleware.WithHintRegistry: nil registry")
	}
	return func(o *defaultOptions) { o.hints = r }
}

// WithoutDeclaredSchemas turns off the enforcement of the input schemas
// tools declare (validate.DeclaredSchemas) for the named tools, or, with
// no names, for the whole chain.
func WithoutDeclaredSchemas(tools ...string) Option {
	return func(o *defaultOptions) {
		if len(tools) == 0 {
			o.declaredOff = true
		}
		o.declaredExcept = append(o.declaredExcept, tools...)
	}
}

// Default returns the recommended chain, outermost first, for
//
//	s.Use(middleware.Default()...)
//
// The order is:
//
//	Logging   (only with WithLogger) records what the client finally saw
//	recover   turns a panic anywhere below into an internal_error envelope
//	repeats   holds back, for a short wait, a caller's call that already
//	          failed 3 times unchanged (limit.Repeats; WithRepeats)
//	redact    scrubs every error result on its way out
//	envelope  turns (nil, err) and ad-hoc error results into envelopes
//	pins      (only with WithPins) refuses the tools whose definition is
//	          not the one approved (core/pin; PinListing hides them)
//	seal      seals every requestState handed out and opens every echo
//	          (SealState; WithStateKeys, WithoutStateSealing)
//	hints     (only with WithHints) the tools' next steps, on refusals too
//	limits    (only with WithLimits) rate, concurrency and time bounds
//	declared  checks the arguments against the tool's declared input schema
//	          (validate.DeclaredSchemas; off with WithoutDeclaredSchemas)
//	… your layers (validate) and the handler
//
// recover sits outside everything that can fail, so a panic in any layer
// below it, or in a callback a layer calls, still ends as an envelope.
// redact sits outside envelope so that it also sees error results a layer
// between them, or the handler, built by itself. Logging is outermost so
// that a recovered panic is logged as the call the client saw; it guards
// itself. repeats sits outside redact and envelope, whose redacted
// envelopes it reads and quotes, and outside the limits, so that a call it
// answers takes no token. The order is core/pipeline's (pipeline.Order),
// the same on the go-sdk front and the proxy. recover, repeats, redact,
// envelope, pins, seal, hints and declared are one layer: core/chain runs
// the stages, each written once in core, in one call (with a WithRepeats
// layer of your own, recover and the rest are two layers around it;
// behind limits, declared is a layer of its own). Each is also its own
// layer, to use alone: recover.Middleware, limit.Repeats,
// redact.Middleware, envelope.Middleware, middleware.SealState,
// hints.Middleware, validate.DeclaredSchemas.
func Default(opts ...Option) []server.ToolHandlerMiddleware {
	var o defaultOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	rec, env, red := o.recOpts, o.envOpts, o.redOpts
	if o.redactor != nil {
		env = append([]envelope.Option{envelope.WithRedactor(o.redactor)}, env...)
		red = append([]redact.Option{redact.WithRedactor(o.redactor)}, red...)
	}
	// Each layer goes into its stage; core/pipeline's one order
	// (pipeline.Order) puts them in the chain.
	var l pipeline.Layers[server.ToolHandlerMiddleware]
	if o.loggerOn {
		l.Add(pipeline.Log, Logging(o.logger, o.logOpts...))
		rec = append([]recover.Option{recover.WithLogger(o.logger)}, rec...)
		env = append([]envelope.Option{envelope.WithLogger(o.logger)}, env...)
	}
	// One Renderer for every envelope of the chain: a panic, an error, a
	// legacy error result, and what layers inside render (RendererFrom).
	renderer := envelope.NewRenderer(env...)
	// The stages of admission that core writes (pins, seal, hints,
	// declared) run in the chain too, up to the first layer of the user's
	// (limits): what follows one runs inside it, as a layer.
	var gates []chain.Admission[q]
	if o.pins != nil {
		gates = append(gates, chain.Admission[q]{At: pipeline.Pins, Gate: newPinGate(o.pins)})
	}
	if g, ok := stateGate(&o); ok {
		gates = append(gates, g)
	}
	if h, ok := hintStage(&o); ok {
		gates = append(gates, h)
	}
	for _, lim := range o.limits {
		if lim != nil {
			l.Add(pipeline.Limits, lim)
		}
	}
	if d, ok := declaredStage(&o); ok {
		if len(l.Limits) == 0 {
			gates = append(gates, d)
		} else {
			l.Add(pipeline.Declared, envelope.Gate(d.Gate))
		}
	}
	answerLayers(&l, &o, renderer, rec, red, gates)
	return l.Ordered()
}

// hintStage is the chain's hints, unless it has none.
func hintStage(o *defaultOptions) (chain.Admission[q], bool) {
	if o.hints != nil && len(o.hintRules) > 0 {
		panic("middleware.Default: both WithHints and WithHintRegistry; put every rule in one")
	}
	if o.hints != nil {
		return o.hints.Stage(), true
	}
	if len(o.hintRules) == 0 {
		return chain.Admission[q]{}, false
	}
	var hopts []hints.Option
	if o.redactor != nil {
		hopts = append(hopts, hints.WithRedactor(o.redactor))
	}
	if o.loggerOn {
		hopts = append(hopts, hints.WithLogger(o.logger))
	}
	return hints.New(o.hintRules, hopts...).Stage(), true
}

// declaredStage is the chain's declared-schema check, unless it is off.
// It sits inside the limits, so that a refused call costs no check, and
// inside envelope, whose renderer it renders with.
func declaredStage(o *defaultOptions) (chain.Admission[q], bool) {
	if o.declaredOff {
		return chain.Admission[q]{}, false
	}
	var opts []coredeclared.Option
	if o.loggerOn {
		opts = append(opts, coredeclared.WithLogger(o.logger))
	}
	d := validate.DeclaredStage(opts...)
	if len(o.declaredExcept) > 0 {
		d.Gate = exceptGate{d.Gate, nameSet(o.declaredExcept)}
	}
	return d, true
}

// exceptGate is a gate that passes the calls of the named tools by.
type exceptGate struct {
	chain.Gate[q]
	except map[string]struct{}
}

// Admit admits a call of an excepted tool as it is, any other as the
// gate does.
func (g exceptGate) Admit(ctx context.Context, req q) (q, error) {
	if _, ok := g.except[req.Params.Name]; ok {
		return req, nil
	}
	return g.Gate.Admit(ctx, req)
}
