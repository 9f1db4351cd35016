package hints

import (
	"log/slog"

	"github.com/mcpguard/mcpguard/core/redact"
)

// Option configures a [Registry].
type Option func(*options)

type options struct {
	logger      *slog.Logger
	redactor    *redact.Redactor
	successText bool
}

func evaluate(opts []Option) options {
	o := options{redactor: redact.Default(), successText: true}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.redactor == nil {
		o.redactor = redact.New()
	}
	return o
}

// WithLogger sets where panics in hint functions and configuration
// warnings are logged. The default is [slog.Default] at the time of the
// call.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithRedactor sets the redactor every hint's text goes through. The
// default is [redact.Default]. Pass the same one to the envelope and
// redact layers if you extend the rules.
func WithRedactor(r *redact.Redactor) Option { return func(o *options) { o.redactor = r } }

// WithoutSuccessText leaves success hints out of the result's content, so
// they appear only under its _meta key [MetaKey], for clients that show
// every text content item to a human.
func WithoutSuccessText() Option { return func(o *options) { o.successText = false } }

func (o *options) log() *slog.Logger {
	if o.logger != nil {
		return o.logger
	}
	return slog.Default()
}
