package otel

import (
	"context"

	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpguard/mcpguard/core/redact"
)

// Option configures an [Instrument]. Each front's With<Name> options are
// these, translated.
type Option func(*options)

type options struct {
	tp          trace.TracerProvider
	mp          metric.MeterProvider
	propagator  propagation.TextMapPropagator
	arguments   bool
	results     bool
	redactor    *redact.Redactor
	methods     map[string]bool // nil: every method
	uriRedactor func(string) string
	details     func(context.Context, *Call) // nil: the Call is all there is
}

func evaluate(opts []Option) *options {
	o := &options{
		propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
		redactor:   redact.Default(),
	}
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
	if o.tp == nil {
		o.tp = otelapi.GetTracerProvider()
	}
	if o.mp == nil {
		o.mp = otelapi.GetMeterProvider()
	}
	if o.redactor == nil {
		o.redactor = redact.New()
	}
	if o.uriRedactor == nil {
		o.uriRedactor = o.redactor.Text
	}
	return o
}

// WithTracerProvider sets the tracer provider. The default is the global
// one, otel.GetTracerProvider(), at the time the Instrument is built.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *options) { o.tp = tp }
}

// WithMeterProvider sets the meter provider. The default is the global
// one, otel.GetMeterProvider(), at the time the Instrument is built.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(o *options) { o.mp = mp }
}

// WithPropagator sets how trace context is read from a request's
// params._meta. The default reads W3C traceparent and tracestate, and
// baggage, the keys the conventions name.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(o *options) {
		if p != nil {
			o.propagator = p
		}
	}
}

// WithArguments records a call's arguments as gen_ai.tool.call.arguments,
// redacted, up to 64 KiB (larger ones as their size only).
func WithArguments() Option { return func(o *options) { o.arguments = true } }

// WithResults records a successful result's text as
// gen_ai.tool.call.result, its text items joined with a line break,
// redacted and bounded like [WithArguments]. A failure's text is never
// recorded.
func WithResults() Option { return func(o *options) { o.results = true } }

// WithRedactor sets the redactor for captured arguments, results and, unless
// [WithURIRedactor] replaces it, resource URIs. The default is
// redact.Default().
func WithRedactor(r *redact.Redactor) Option { return func(o *options) { o.redactor = r } }

// WithMethods traces and measures only the MCP methods named (such as
// "tools/call" or "resources/read"); every other passes through untouched.
// Without it every method the front sees is traced. It panics on an empty
// list or an empty name: a filter that matches nothing is a mistake.
func WithMethods(methods ...string) Option {
	if len(methods) == 0 {
		panic("mcpguard/otel: WithMethods needs at least one method name")
	}
	set := make(map[string]bool, len(methods))
	for _, m := range methods {
		if m == "" {
			panic("mcpguard/otel: WithMethods: a method name must not be empty")
		}
		set[m] = true
	}
	return func(o *options) { o.methods = set }
}

// WithURIRedactor sets how a resource URI is written into mcp.resource.uri:
// fn receives the URI the client asked for and returns what the span
// records ("" leaves the attribute out). The default masks the secret
// shapes of the redactor (see [WithRedactor]), such as a token in a query.
// The result is bounded to 1 KiB whatever fn returns.
func WithURIRedactor(fn func(uri string) string) Option {
	if fn == nil {
		panic("mcpguard/otel: WithURIRedactor needs a function, not nil")
	}
	return func(o *options) { o.uriRedactor = fn }
}

// WithCallDetails sets fn, which [Instrument.Start] calls with each
// traced call's context and [Call] before it reads the Call: the place for
// a front whose SDK tells some of a call's details (its JSON-RPC request
// ID, the protocol version its session negotiated) only outside the
// request its handlers get, such as to hooks, to fill them in. A nil fn
// leaves the option as it was.
func WithCallDetails(fn func(ctx context.Context, c *Call)) Option {
	return func(o *options) {
		if fn != nil {
			o.details = fn
		}
	}
}
