package envelope

import (
	"errors"
	"log/slog"

	"github.com/mcpguard/mcpguard/internal/safe"
	"github.com/mcpguard/mcpguard/redact"
)

// Option configures [Middleware] and [ErrorResult].
type Option func(*options)

type mapping struct {
	target error
	code   Code
}

type options struct {
	mappings  []mapping
	mappers   []func(error) (Code, bool)
	steps     map[Code][]string
	logger    *slog.Logger
	redactor  *redact.Redactor
	generic   string
	normalize bool
}

func evaluate(opts []Option) *options {
	o := &options{redactor: redact.Default(), normalize: true}
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
	if o.redactor == nil {
		o.redactor = redact.New()
	}
	return o
}

// WithMapping maps every error that matches target under [errors.Is] to
// code, for sentinels the handler does not wrap itself:
//
//	envelope.WithMapping(sql.ErrNoRows, envelope.NotFound)
//
// A code given by the error itself ([New], [Wrap]) wins over a mapping.
// Mappings are tried in the order given.
func WithMapping(target error, code Code) Option {
	if target == nil {
		panic("envelope: WithMapping with a nil target")
	}
	if !code.Valid() {
		panic("envelope: WithMapping with invalid code " + string(code))
	}
	return func(o *options) { o.mappings = append(o.mappings, mapping{target, code}) }
}

// WithMapper adds a function that classifies errors, for error types rather
// than values:
//
//	envelope.WithMapper(func(err error) (envelope.Code, bool) {
//		var pgErr *pgconn.PgError
//		if errors.As(err, &pgErr) && pgErr.Code == "42P01" {
//			return envelope.ExecutionFailed, true
//		}
//		return "", false
//	})
//
// Mappers run after the error's own code and before [WithMapping]'s
// sentinels; the first that answers true with a valid code wins. A mapper
// that panics is recovered and the error is treated as internal.
func WithMapper(fn func(error) (Code, bool)) Option {
	if fn == nil {
		panic("envelope: WithMapper with a nil function")
	}
	return func(o *options) { o.mappers = append(o.mappers, fn) }
}

// WithDefaultNextSteps replaces the default next steps of a code for every
// tool behind this layer. Steps that errors carry still come first.
func WithDefaultNextSteps(code Code, steps ...string) Option {
	if !code.Valid() {
		panic("envelope: WithDefaultNextSteps with invalid code " + string(code))
	}
	return func(o *options) {
		if o.steps == nil {
			o.steps = map[Code][]string{}
		}
		o.steps[code] = append([]string(nil), steps...)
	}
}

// WithLogger sets where internal errors are logged, with their full detail
// and incident ID. The default is [slog.Default] at the time of the call.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithRedactor sets the redactor for messages and next steps. The default is
// [redact.Default]; redact.New() turns redaction off, which you should not.
func WithRedactor(r *redact.Redactor) Option { return func(o *options) { o.redactor = r } }

// WithInternalMessage replaces the generic message of internal errors. The
// incident ID is appended to it.
func WithInternalMessage(msg string) Option { return func(o *options) { o.generic = msg } }

// WithoutNormalization leaves results that a handler built with
// isError: true as they are, instead of rewriting them into envelopes.
func WithoutNormalization() Option { return func(o *options) { o.normalize = false } }

func (o *options) log() *slog.Logger {
	if o.logger != nil {
		return o.logger
	}
	return slog.Default()
}

func (o *options) defaultSteps(c Code) []string {
	if s, ok := o.steps[c]; ok {
		return s
	}
	return defaultSteps[c]
}

// classify finds the code of err, reporting retryable when a timeout or
// cancellation makes the identical call worth repeating.
func (o *options) classify(err error) (code Code, retryable bool, mapperPanic any) {
	var e *Error
	if errors.As(err, &e) {
		return e.code, e.code.Retryable(), nil
	}
	for _, m := range o.mappers {
		c, ok, p := callMapper(m, err)
		if p != nil {
			return InternalError, true, p
		}
		if ok && c.Valid() {
			return c, c.Retryable(), nil
		}
	}
	for _, m := range o.mappings {
		if errors.Is(err, m.target) {
			return m.code, m.code.Retryable(), nil
		}
	}
	if isTimeout(err) {
		return ExecutionFailed, true, nil
	}
	return InternalError, true, nil
}

func callMapper(m func(error) (Code, bool), err error) (c Code, ok bool, p any) {
	p = safe.Call(func() { c, ok = m(err) })
	return c, ok, p
}
