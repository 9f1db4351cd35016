package redact

// Option configures an SDK front's redaction middleware and [Handler].
type Option func(*options)

type options struct {
	redactor  *Redactor
	successes bool
}

// Config is what a list of options selects. An SDK front's middleware reads
// it; most users never need it.
type Config struct {
	// Redactor is the redactor to apply; never nil.
	Redactor *Redactor
	// RedactSuccesses reports whether successful results are redacted too
	// (WithRedactSuccesses), not only failures.
	RedactSuccesses bool
	// Successes is the redactor of successful results, Redactor's
	// [Redactor.ForSuccess]; never nil.
	Successes *Redactor
}

// Configure evaluates opts, as a middleware built with them would.
func Configure(opts ...Option) Config {
	o := evaluate(opts)
	return Config{Redactor: o.redactor, RedactSuccesses: o.successes, Successes: o.redactor.ForSuccess()}
}

func evaluate(opts []Option) options {
	o := options{redactor: defaultRedactor}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.redactor == nil {
		o.redactor = defaultRedactor
	}
	return o
}

// WithRedactor replaces the default rules with r's.
func WithRedactor(r *Redactor) Option { return func(o *options) { o.redactor = r } }

// WithRules adds rules after the ones already configured (the defaults,
// unless [WithRedactor] came first).
func WithRules(rules ...Rule) Option {
	return func(o *options) { o.redactor = o.redactor.With(rules...) }
}

// WithoutRules drops rules by name or category from the ones already
// configured, e.g. WithoutRules("paths") for a tool whose errors name files
// the agent did not send. See [Redactor.Without].
func WithoutRules(names ...string) Option {
	return func(o *options) { o.redactor = o.redactor.Without(names...) }
}

// WithRedactSuccesses redacts successful results too, with the rules of
// [Redactor.ForSuccess]: secrets, tokens and stack traces go, paths and
// source positions stay. By default only error results are redacted: a
// successful result is the tool's intended output, which may legitimately
// hold paths (a file tool) or even a key (a tool that issues them), and
// leaving it alone keeps the success path free.
func WithRedactSuccesses() Option { return func(o *options) { o.successes = true } }
