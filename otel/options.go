package otel

import (
	"context"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	coreotel "github.com/mcpguard/mcpguard/core/otel"
	"github.com/mcpguard/mcpguard/redact"
)

// The options, their defaults and their checks are the SDK-neutral core's
// (github.com/mcpguard/mcpguard/core/otel), the very ones the go-sdk
// front's otel package exports; only [WithHooks], which reads mcp-go's
// hooks, is this front's own.

// Option configures [Middleware] and [ResourceMiddleware].
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

// WithArguments records the call's arguments as the conventions' opt-in
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
// resource URIs. The default is redact.Default(); pass the one you give the
// envelope layer if you extend its rules.
func WithRedactor(r *redact.Redactor) Option { return coreotel.WithRedactor(r) }

// WithMethods traces only the MCP methods named: "tools/call" for
// [Middleware], "resources/read" for [ResourceMiddleware]. A layer whose
// method is left out returns the handler itself. It panics on an empty list
// or an empty name.
func WithMethods(methods ...string) Option { return coreotel.WithMethods(methods...) }

// WithURIRedactor sets what [ResourceMiddleware] records as
// mcp.resource.uri: fn receives the URI the client asked for and returns
// what the span carries ("" leaves it out), at most 1 KiB. The default
// masks the redactor's secret shapes, such as a token in a query. It panics
// on a nil fn.
func WithURIRedactor(fn func(uri string) string) Option { return coreotel.WithURIRedactor(fn) }

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
	if h == nil {
		return coreotel.WithCallDetails(nil)
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
	return coreotel.WithCallDetails(ids.fill)
}

// requestIDs maps an in-flight call's context, which mcp-go hands both to
// the hooks and to the middleware chain, to its JSON-RPC request ID; and a
// session ID to the protocol version its initialize negotiated.
type requestIDs struct {
	m        sync.Map
	versions sync.Map
}

// fill gives a tools/call what the hooks saw of it: its request ID, and
// its session's protocol version where the transport did not say.
func (r *requestIDs) fill(ctx context.Context, c *coreotel.Call) {
	if c.Method != coreotel.MethodCallTool {
		return
	}
	if c.ProtocolVersion == "" {
		c.ProtocolVersion = r.version(sessionIDOf(ctx))
	}
	if id, ok := r.take(ctx); ok {
		c.RequestID = formatID(id)
	}
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
