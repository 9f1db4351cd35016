package gosdk

import (
	"context"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/pin"
	"github.com/mcpguard/mcpguard/core/redact"
)

// Option configures [Middleware].
type Option func(*options)

// EnvelopeOption configures how the chain classifies and renders failures:
// the options of github.com/mcpguard/mcpguard/core/envelope (WithMapping,
// WithMapper, WithDefaultNextSteps, …), the very ones the mcp-go front
// takes. The most used are also gosdk Options below.
type EnvelopeOption = core.Option

// Panic describes a recovered panic: the incident ID the client receives,
// the tool, the value and (unless [WithoutStack]) the stack. The value and
// the stack are for the server's log and callbacks only.
type Panic = core.Panic

type options struct {
	env       []core.Option
	redactor  *redact.Redactor
	successes bool
	logger    *slog.Logger
	logOpts   []LogOption
	noStack   bool
	onPanic   func(context.Context, *mcp.CallToolRequest, Panic)
	limits    []mcp.Middleware
	hints     *HintRegistry
	hintRules []Rule
	// declaredOff turns declared-schema enforcement off; declaredExcept,
	// for these tools only.
	declaredOff    bool
	declaredExcept []string
	// repeats replaces the repeated-failure guard; repeatsSet says it was
	// given (nil: off).
	repeats    *Repeats
	repeatsSet bool
	// state configures the requestState sealing step (seal.go).
	state stateOptions
	// pins holds back tools whose definition is not approved (pin.go).
	pins *pin.Pins
}

// WithEnvelopeOptions configures classification and rendering with core
// envelope options, applied after the ones the other Options give.
func WithEnvelopeOptions(opts ...EnvelopeOption) Option {
	return func(o *options) { o.env = append(o.env, opts...) }
}

// WithMapping maps every error that matches target under errors.Is to
// code, for sentinels the handler does not wrap itself:
//
//	gosdk.WithMapping(sql.ErrNoRows, gosdk.NotFound)
//
// It panics on a nil target or an invalid code, at construction.
func WithMapping(target error, code Code) Option {
	return WithEnvelopeOptions(core.WithMapping(target, code))
}

// WithMapper adds a function that classifies errors, for error types rather
// than values; see core/envelope's WithMapper.
func WithMapper(fn func(error) (Code, bool)) Option {
	return WithEnvelopeOptions(core.WithMapper(fn))
}

// WithDefaultNextSteps replaces the default next steps of code for every
// tool behind the Middleware. Steps that errors carry still come first.
func WithDefaultNextSteps(code Code, steps ...string) Option {
	return WithEnvelopeOptions(core.WithDefaultNextSteps(code, steps...))
}

// WithInternalMessage replaces the generic message of internal errors. The
// incident ID is appended to it.
func WithInternalMessage(msg string) Option {
	return WithEnvelopeOptions(core.WithInternalMessage(msg))
}

// WithUnclassified sets the code of errors that nothing classifies. The
// default, internal_error, sends a generic message and logs the detail
// under an incident ID; servers whose plain errors are written for the
// agent opt in with gosdk.WithUnclassified(gosdk.ExecutionFailed).
func WithUnclassified(code Code) Option {
	return WithEnvelopeOptions(core.WithUnclassified(code))
}

// WithToolFailureMeta also puts the envelope under the result's _meta, as
// the draft MCP proposal for structured tool failures describes it.
func WithToolFailureMeta() Option { return WithEnvelopeOptions(core.WithToolFailureMeta()) }

// WithoutNormalization leaves error results a handler built itself
// (isError: true without an error set with SetError) as they are, instead
// of rewriting them into envelopes. They are still redacted.
func WithoutNormalization() Option { return WithEnvelopeOptions(core.WithoutNormalization()) }

// WithRedactor sets the one redactor of the chain: error results on their
// way out and every envelope the chain renders, including those of layers
// inside it. The default is redact.Default() of core/redact; extend it
// rather than replace it:
//
//	gosdk.WithRedactor(redact.Default().With(myRule))
func WithRedactor(r *redact.Redactor) Option { return func(o *options) { o.redactor = r } }

// WithRedactSuccesses redacts successful results too, with the rules of
// redact.Redactor.ForSuccess: secrets, tokens and stack traces go, paths
// and source positions stay. By default only error results are: a
// successful result is the tool's intended output, which may legitimately
// hold a path or a key, and leaving it alone keeps the success path free.
func WithRedactSuccesses() Option { return func(o *options) { o.successes = true } }

// WithLogger writes one record per tool call to l (see [LogOption]) and
// sends the chain's incident records (panics, internal errors) there too.
// Without it nothing is logged per call, and incidents go to slog.Default.
func WithLogger(l *slog.Logger, opts ...LogOption) Option {
	return func(o *options) { o.logger, o.logOpts = l, opts }
}

// WithoutStack leaves the stack out of a recovered panic's log record, for
// loggers that cannot take multi-kilobyte attributes.
func WithoutStack() Option { return func(o *options) { o.noStack = true } }

// WithOnPanic calls fn after each recovered panic has been logged, to feed
// an error tracker or a metric. fn runs on the handler's goroutine; a panic
// inside it is recovered and logged too.
func WithOnPanic(fn func(ctx context.Context, req *mcp.CallToolRequest, p Panic)) Option {
	return func(o *options) { o.onPanic = fn }
}

// chain is a Middleware's evaluated configuration.
type chain struct {
	front     *front
	redactor  *redact.Redactor
	successes *redact.Redactor // redactor.ForSuccess(); nil: successes pass as they are
	log       *logger          // nil: no per-call record
	recover   core.RecoverOptions
	onPanic   func(context.Context, *mcp.CallToolRequest, Panic)
	limits    []mcp.Middleware // WithLimits, inside the guard
	hints     *HintRegistry    // WithHints, inside the guard, outside the limits; nil: none
	declared  *declared        // nil: WithoutDeclaredSchemas()
	repeats   *Repeats         // nil: WithRepeats(nil)
	seal      *sealGate        // requestState sealing; nil: WithoutStateSealing()
	pins      *pin.Pins        // WithPins; nil: off
}

// evaluate applies opts in one place: the defaults, then the options.
func evaluate(opts []Option) *chain {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	env := make([]core.Option, 0, len(o.env)+2)
	if o.redactor != nil {
		env = append(env, core.WithRedactor(o.redactor))
	}
	if o.logger != nil {
		env = append(env, core.WithLogger(o.logger))
	}
	env = append(env, o.env...)
	r := core.NewRenderer(env...)
	c := &chain{
		front:    &front{r: r},
		redactor: r.Redactor(),
		recover:  core.RecoverOptions{Logger: o.logger, Stack: !o.noStack},
		onPanic:  o.onPanic,
		limits:   o.limits,
		declared: newDeclared(&o),
		pins:     o.pins,
	}
	if o.successes {
		c.successes = c.redactor.ForSuccess()
	}
	if o.logger != nil {
		c.log = newLogger(o.logger, o.logOpts)
	}
	c.hints = o.hintRegistry(c.redactor)
	c.seal = o.stateGate()
	c.repeats = o.repeats
	if !o.repeatsSet {
		c.repeats = defaultRepeats()
	}
	return c
}

// WithHints puts the hints layer of rules inside the Middleware, where it
// belongs: inside its recovery, so that a panicking hint function can
// never end the process, and outside the limits, so that a refusal gets
// the tool's steps too. Its hint texts go through the Middleware's
// redactor and its warnings to the Middleware's logger. Several WithHints
// are merged. See [Hints] for what the layer does.
func WithHints(rules ...Rule) Option {
	for _, r := range rules {
		if r.Tool() == "" {
			panic("gosdk.WithHints: zero Rule; build rules with gosdk.For")
		}
	}
	return func(o *options) { o.hintRules = append(o.hintRules, rules...) }
}

// WithHintRegistry is [WithHints] for a registry built with its own
// options ([WithoutSuccessText], [WithHintLogger], [WithHintRedactor]).
// It panics on a nil registry.
func WithHintRegistry(r *HintRegistry) Option {
	if r == nil {
		panic("gosdk.WithHintRegistry: nil registry")
	}
	return func(o *options) { o.hints = r }
}

// hintRegistry returns the hints the options configure, or nil for none.
func (o *options) hintRegistry(red *redact.Redactor) *HintRegistry {
	switch {
	case o.hints != nil && len(o.hintRules) > 0:
		panic("gosdk.Middleware: both WithHints and WithHintRegistry; put every rule in one")
	case o.hints != nil:
		if o.hints.c.Empty() {
			return nil
		}
		return o.hints
	case len(o.hintRules) > 0:
		hopts := []HintOption{WithHintRedactor(red)}
		if o.logger != nil {
			hopts = append(hopts, WithHintLogger(o.logger))
		}
		return NewHintRegistry(o.hintRules, hopts...)
	}
	return nil
}
