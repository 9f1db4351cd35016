package redact

import (
	"log/slog"

	core "github.com/mcpguard/mcpguard/core/redact"
)

// The names below are those of the SDK-neutral core
// (github.com/mcpguard/mcpguard/core/redact): the same types and values, so a
// Redactor built here serves a go-sdk front as well.

// Placeholder replaces every redacted span.
const Placeholder = core.Placeholder

// Redactor applies an ordered list of rules. It is immutable and safe for
// concurrent use.
type Redactor = core.Redactor

// Rule is one redaction: a named regular expression with fixed-text
// triggers and a replacement.
type Rule = core.Rule

// Option configures [Middleware] and [Handler].
type Option = core.Option

// Default returns the redactor with [DefaultRules].
func Default() *Redactor { return core.Default() }

// New returns a redactor applying rules in order.
func New(rules ...Rule) *Redactor { return core.New(rules...) }

// NewRule builds a rule; it panics if expr does not compile.
func NewRule(name, expr, replacement string, triggers ...string) Rule {
	return core.NewRule(name, expr, replacement, triggers...)
}

// DefaultRules returns a copy of the default rules, in the order applied.
func DefaultRules() []Rule { return core.DefaultRules() }

// String redacts s with the default rules.
func String(s string) string { return core.String(s) }

// IsSecretKey reports whether a key or attribute name holds a credential
// (db_password, dbPassword, AWS_SECRET_ACCESS_KEY, x-api-key, …): the one
// matcher every layer uses.
func IsSecretKey(name string) bool { return core.IsSecretKey(name) }

// Handler wraps h so that every record it receives is redacted first: the
// message, every attribute value and the values of secret-named attributes.
func Handler(h slog.Handler, opts ...Option) slog.Handler { return core.Handler(h, opts...) }

// WithRedactor replaces the redactor ([Default] when not given).
func WithRedactor(r *Redactor) Option { return core.WithRedactor(r) }

// WithRules adds rules after the current redactor's.
func WithRules(rules ...Rule) Option { return core.WithRules(rules...) }

// WithoutRules drops rules by name or by category ("paths", "secrets/jwt").
func WithoutRules(names ...string) Option { return core.WithoutRules(names...) }

// WithRedactSuccesses makes [Middleware] redact successful results too, not
// only failures.
func WithRedactSuccesses() Option { return core.WithRedactSuccesses() }
