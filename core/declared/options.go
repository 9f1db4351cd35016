package declared

import (
	"log/slog"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/internal/fields"
)

// Option configures a [Checker].
type Option func(*options)

type options struct {
	logger   *slog.Logger
	maxDepth int
	maxBytes int
}

// Defaults, the same as core/validate's binder's.
const (
	// DefaultMaxDepth bounds the nesting of objects and arrays in arguments.
	DefaultMaxDepth = fields.DefaultMaxDepth
	// DefaultMaxBytes bounds the size of the arguments' JSON text.
	DefaultMaxBytes = fields.DefaultMaxBytes
	// MaxFieldErrors bounds the field errors one validation_error lists,
	// then one entry with rule "more" counts the rest: core/envelope's
	// bound, as for the binder.
	MaxFieldErrors = envelope.MaxFieldErrors
)

func evaluate(opts []Option) options {
	o := options{maxDepth: DefaultMaxDepth, maxBytes: DefaultMaxBytes, logger: slog.Default()}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// WithMaxDepth bounds how deeply objects and arrays may nest in the
// arguments (default [DefaultMaxDepth]); deeper input is refused before it
// is decoded. It panics unless n is positive.
func WithMaxDepth(n int) Option {
	if n < 1 {
		panic("declared: WithMaxDepth needs a positive depth")
	}
	return func(o *options) { o.maxDepth = n }
}

// WithMaxBytes bounds the size of the arguments' JSON text (default
// [DefaultMaxBytes]); larger input is refused before it is decoded. It
// panics unless n is positive.
func WithMaxBytes(n int) Option {
	if n < 1 {
		panic("declared: WithMaxBytes needs a positive size")
	}
	return func(o *options) { o.maxBytes = n }
}

// WithLogger sends the check's own records (a schema not enforced, a
// keyword off, the conversions it made) to l instead of slog.Default().
// It panics on a nil l.
func WithLogger(l *slog.Logger) Option {
	if l == nil {
		panic("declared: WithLogger(nil)")
	}
	return func(o *options) { o.logger = l }
}
