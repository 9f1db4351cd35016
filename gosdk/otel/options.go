package otel

import (
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	coreotel "github.com/mcpguard/mcpguard/core/otel"
	"github.com/mcpguard/mcpguard/core/redact"
)

// The options, their defaults and their checks are the SDK-neutral core's
// (github.com/mcpguard/mcpguard/core/otel), the very ones the mcp-go
// front's otel package exports.

// Option configures [Middleware].
type Option = coreotel.Option

// WithTracerProvider sets the tracer provider. The default is the global
// one, otel.GetTracerProvider(), at the time Middleware is called.
func WithTracerProvider(tp trace.TracerProvider) Option { return coreotel.WithTracerProvider(tp) }

// WithMeterProvider sets the meter provider. The default is the global
// one, otel.GetMeterProvider(), at the time Middleware is called.
func WithMeterProvider(mp metric.MeterProvider) Option { return coreotel.WithMeterProvider(mp) }

// WithPropagator sets how trace context is read from a request's
// params._meta. The default reads W3C traceparent and tracestate, and
// baggage, the keys the conventions name.
func WithPropagator(p propagation.TextMapPropagator) Option { return coreotel.WithPropagator(p) }

// WithArguments records a tool call's arguments as the conventions' opt-in
// gen_ai.tool.call.arguments, redacted with the rules of error messages
// (values of secret-named members masked). Arguments over 64 KiB are
// recorded as their size only. Leave it off unless your arguments may be
// stored by your tracing backend: redaction catches known secret shapes,
// not personal data.
func WithArguments() Option { return coreotel.WithArguments() }

// WithResults records a successful tool result's text as the
// conventions' opt-in gen_ai.tool.call.result, its text items joined with
// a line break, redacted and bounded like [WithArguments]; a failure's
// text is never recorded.
func WithResults() Option { return coreotel.WithResults() }

// WithRedactor sets the redactor for captured arguments, results and
// resource URIs. The default is the core's redact.Default(); pass the one
// you give gosdk.Middleware if you extend its rules.
func WithRedactor(r *redact.Redactor) Option { return coreotel.WithRedactor(r) }

// WithMethods traces only the MCP methods named, such as "tools/call" and
// "resources/read"; every other request passes through untouched, without
// allocating. It panics on an empty list or an empty name.
func WithMethods(methods ...string) Option { return coreotel.WithMethods(methods...) }

// WithURIRedactor sets what resources/read records as mcp.resource.uri: fn
// receives the URI the client asked for and returns what the span carries
// ("" leaves it out), at most 1 KiB. The default masks the redactor's
// secret shapes, such as a token in a query. It panics on a nil fn.
func WithURIRedactor(fn func(uri string) string) Option { return coreotel.WithURIRedactor(fn) }
