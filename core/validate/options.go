package validate

import (
	"log/slog"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// Option configures a [Binder], an [Output] and the schemas derived for
// them.
type Option func(*options)

type options struct {
	coerce    bool
	logger    *slog.Logger
	validator *Validator
	maxDepth  int
	maxBytes  int
	envelope  []envelope.Option
}

// Defaults, chosen so that any argument object a tool can sensibly take
// passes, and so that what does not costs linear time to refuse.
const (
	// DefaultMaxDepth bounds the nesting of objects and arrays in arguments.
	DefaultMaxDepth = 32
	// DefaultMaxBytes bounds the size of the arguments' JSON text.
	DefaultMaxBytes = 1 << 20
	// MaxFieldErrors bounds the field errors one validation_error lists:
	// the first MaxFieldErrors violations, then one entry with rule
	// "more" whose param says how many more there are. With paths,
	// previews and keys clipped, it bounds the size of every validation
	// failure, whatever the size of the arguments. It is core/envelope's
	// bound, which caps a relayed envelope's fields too.
	MaxFieldErrors = envelope.MaxFieldErrors
)

func evaluate(opts []Option) options {
	o := options{validator: defaultValidator, maxDepth: DefaultMaxDepth, maxBytes: DefaultMaxBytes, logger: slog.Default()}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// WithValidator validates with v, a [Validator] wrapping a
// *validator.Validate that may carry custom tags, instead of the shared
// default. It panics on a nil v.
func WithValidator(v *Validator) Option {
	if v == nil {
		panic("validate: WithValidator(nil)")
	}
	return func(o *options) { o.validator = v }
}

// WithMaxDepth bounds how deeply objects and arrays may nest in the
// arguments (default [DefaultMaxDepth]); deeper input is refused before it
// is decoded. It panics unless n is positive.
func WithMaxDepth(n int) Option {
	if n < 1 {
		panic("validate: WithMaxDepth needs a positive depth")
	}
	return func(o *options) { o.maxDepth = n }
}

// WithMaxBytes bounds the size of the arguments' JSON text (default
// [DefaultMaxBytes]); larger input is refused before it is decoded. It
// panics unless n is positive.
func WithMaxBytes(n int) Option {
	if n < 1 {
		panic("validate: WithMaxBytes needs a positive size")
	}
	return func(o *options) { o.maxBytes = n }
}

// WithEnvelopeOptions asks the front to render validation failures with
// these envelope options, e.g. a custom redactor or next steps for
// validation errors, so that they match the envelope layer's
// configuration ([Binder.EnvelopeOptions]). The core renders nothing
// itself.
func WithEnvelopeOptions(opts ...envelope.Option) Option {
	return func(o *options) { o.envelope = append(o.envelope, opts...) }
}

// WithCoercion accepts a number or a boolean sent as a JSON string when
// the string holds exactly one ("1" or "2.5" for a number, "true" or
// "false" for a boolean), as some models send them. It is off by default,
// since the schema still says integer: the agent is not told, but each
// coerced call is logged (see [WithLogger]) with the paths coerced, so
// that the operator can see which tools and models need it.
func WithCoercion() Option { return func(o *options) { o.coerce = true } }

// WithLogger sends validate's own records, such as the coercions
// [WithCoercion] makes, to l instead of slog.Default(). It panics on a nil
// l.
func WithLogger(l *slog.Logger) Option {
	if l == nil {
		panic("validate: WithLogger(nil)")
	}
	return func(o *options) { o.logger = l }
}
