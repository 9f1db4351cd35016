package otel

import (
	"context"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpguard/mcpguard/redact"
)

// Option configures [Middleware].
type Option func(*options)

type options struct {
	tp         trace.TracerProvider
	mp         metric.MeterProvider
	propagator propagation.TextMapPropagator
	ids        *requestIDs
	arguments  bool
	results    bool
	redactor   *redact.Redactor
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
	return o
}

// WithTracerProvider sets the tracer provider. The default is the global
// one, otel.GetTracerProvider(), at the time Middleware is called.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *options) { o.tp = tp }
}

// WithMeterProvider sets the meter provider. The default is the global
// one, otel.GetMeterProvider(), at the time Middleware is called.
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

// WithHooks records jsonrpc.request.id on spans, and mcp.protocol.version
// where the transport does not keep it (stdio). mcp-go does not pass the
// JSON-RPC request ID to tool handlers, only to hooks, so give the same
// hooks to the server:
//
//	hooks := &server.Hooks{}
//	s := server.NewMCPServer("shop", "1.0.0", server.WithHooks(hooks))
//	s.Use(otel.Middleware(otel.WithHooks(hooks)))
//
// The hooks hold a request ID only while its call is in flight, and a
// negotiated version only while its session is registered.
func WithHooks(h *server.Hooks) Option {
	return func(o *options) {
		if h == nil {
			return
		}
		ids := &requestIDs{}
		h.AddBeforeCallTool(func(ctx context.Context, id any, _ *mcp.CallToolRequest) { ids.store(ctx, id) })
		h.AddAfterCallTool(func(ctx context.Context, _ any, _ *mcp.CallToolRequest, _ any) { ids.forget(ctx) })
		h.AddOnError(func(ctx context.Context, _ any, method mcp.MCPMethod, _ any, _ error) {
			if method == mcp.MethodToolsCall {
				ids.forget(ctx)
			}
		})
		h.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
			if s := server.ClientSessionFromContext(ctx); s != nil && res != nil {
				ids.versions.Store(s.SessionID(), res.ProtocolVersion)
			}
		})
		h.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) { ids.versions.Delete(s.SessionID()) })
		o.ids = ids
	}
}

// WithArguments records the call's arguments as the conventions' opt-in
// gen_ai.tool.call.arguments, redacted with the rules of error messages
// (values of secret-named members masked). Arguments over 64 KiB are
// recorded as their size only. Leave it off unless your arguments may be
// stored by your tracing backend: redaction catches known secret shapes,
// not personal data.
func WithArguments() Option { return func(o *options) { o.arguments = true } }

// WithResults records the result's text as the conventions' opt-in
// gen_ai.tool.call.result, redacted and bounded like [WithArguments].
func WithResults() Option { return func(o *options) { o.results = true } }

// WithRedactor sets the redactor for captured arguments and results. The
// default is redact.Default(); pass the one you give the envelope layer if
// you extend its rules.
func WithRedactor(r *redact.Redactor) Option { return func(o *options) { o.redactor = r } }

// requestIDs maps an in-flight call's context, which mcp-go hands both to
// the hooks and to the middleware chain, to its JSON-RPC request ID; and a
// session ID to the protocol version its initialize negotiated.
type requestIDs struct {
	m        sync.Map
	versions sync.Map
}

func (r *requestIDs) version(sessionID string) string {
	v, _ := r.versions.Load(sessionID)
	s, _ := v.(string)
	return s
}

func (r *requestIDs) store(ctx context.Context, id any) {
	defer func() { _ = recover() }() // a context type that cannot be a map key
	r.m.Store(ctx, id)
}

func (r *requestIDs) take(ctx context.Context) (any, bool) {
	defer func() { _ = recover() }()
	return r.m.LoadAndDelete(ctx)
}

func (r *requestIDs) forget(ctx context.Context) {
	defer func() { _ = recover() }()
	r.m.Delete(ctx)
}
