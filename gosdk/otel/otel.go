package otel

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/envelope"
	coreotel "github.com/mcpguard/mcpguard/core/otel"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/internal/chainmark"
)

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/mcpguard/mcpguard/gosdk/otel"

// mcpguard's own attributes, beside the conventions' error.type=tool_error.
const (
	// ErrorTypeKey is the envelope's error_type, one of the seven codes, on
	// spans and metrics of failed calls.
	ErrorTypeKey = coreotel.ErrorTypeKey
	// IncidentIDKey is the envelope's incident_id, on spans of internal
	// errors only (never on metrics: every value is new).
	IncidentIDKey = coreotel.IncidentIDKey
)

// OtherTool is the gen_ai.tool.name on the metric of a call to a tool the
// server does not have, so that names a client invents add no series.
const OtherTool = coreotel.OtherTool

// OtherVersion is the mcp.protocol.version of a request that names a
// version go-sdk does not support (it refuses such a request; the span
// of the refusal records no client text).
const OtherVersion = coreotel.OtherVersion

// Middleware traces and measures every request a go-sdk server receives by
// the OpenTelemetry semantic conventions for MCP, tools/call as the mcp-go
// front's otel.Middleware does. Add it first, before gosdk.Middleware, so
// that it is outermost and records what the client finally receives:
//
//	server.AddReceivingMiddleware(otel.Middleware(), gosdk.Middleware())
//
// Each request gets a SERVER span named "{mcp.method.name} {target}"
// ("tools/call {tool}", "prompts/get {prompt}", "resources/read") with
// mcp.method.name, gen_ai.tool.name and gen_ai.operation.name=execute_tool
// (tools/call), gen_ai.prompt.name (prompts/get), mcp.resource.uri
// (resources/read, see [WithURIRedactor]), mcp.protocol.version,
// mcp.session.id (while the protocol has sessions), jsonrpc.request.id and,
// over HTTP, network.transport=tcp. A result with isError: true sets
// error.type=tool_error and the span status Error, plus
// mcpguard.error_type and, for an internal error, mcpguard.incident_id. A
// JSON-RPC error sets error.type and rpc.response.status_code to its code.
// Notifications are not traced; [WithMethods] narrows what is.
//
// The histogram mcp.server.operation.duration (seconds, the conventions'
// buckets) gets the low-cardinality attributes only: no session, request or
// incident ID, no URI, never an argument value, and gen_ai.tool.name
// _OTHER for a tool the server does not have.
//
// A trace context the client sends in params._meta (traceparent,
// tracestate, baggage) becomes the span's parent.
//
// With both providers the API's no-op ones (go.opentelemetry.io/otel/trace/noop
// and metric/noop), Middleware returns the handler itself.
func Middleware(opts ...Option) mcp.Middleware {
	in := coreotel.New(ScopeName, opts...)
	if in == nil {
		// Telemetry is off: nothing to record, so nothing to pay.
		return func(next mcp.MethodHandler) mcp.MethodHandler { return next }
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		// The layer never fails a call of its own, so gosdktest's probe may
		// see it outside gosdk.Middleware, as long as what it wraps is ours.
		vouches := chainmark.Vouches(next)
		h := func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if !vouches && method == "tools/call" {
				chainmark.Outside(ctx)
			}
			if !in.Traces(method) || strings.HasPrefix(method, "notifications/") || !in.Active() {
				return next(ctx, method, req)
			}
			return serve(ctx, in, method, req, next)
		}
		chainmark.MarkTransparent(h)
		return h
	}
}

// serve runs one traced request.
func serve(ctx context.Context, in *coreotel.Instrument, method string, req mcp.Request, next mcp.MethodHandler) (res mcp.Result, err error) {
	call := readCall(ctx, in, method, req)
	ctx, span := in.Start(ctx, &call)
	// Without gosdk.Middleware inside, a panic goes on (and go-sdk, which
	// recovers nowhere, ends the process); the span still ends, without
	// the panic value.
	completed := false
	defer span.EndIfPanicking(ctx, &completed)
	res, err = next(ctx, method, req)
	completed = true
	coreotel.End(ctx, span, answerOf(method, res, err))
	return res, err
}

// readCall reads what the span says of req before it runs.
func readCall(ctx context.Context, in *coreotel.Instrument, method string, req mcp.Request) coreotel.Call {
	call := coreotel.Call{Method: method, RequestID: requestID(ctx)}
	call.ProtocolVersion = negotiatedVersion(req)
	if s, ok := req.GetSession().(*mcp.ServerSession); ok && s != nil {
		call.SessionID = s.ID()
	}
	if extra := req.GetExtra(); extra != nil && extra.Header != nil {
		call.Transport = coreotel.TransportHTTP
	}
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw:
		if p == nil {
			break
		}
		call.Tool, call.Meta = p.Name, p.Meta
		if in.RecordsArguments() {
			call.Arguments = func() string { return string(p.Arguments) }
		}
	case *mcp.ReadResourceParams:
		if p != nil {
			call.URI, call.Meta = p.URI, p.Meta
		}
	case *mcp.GetPromptParams:
		if p != nil {
			call.Prompt, call.Meta = p.Name, p.Meta
		}
	}
	return call
}

// unknownToolPrefix starts the message of the JSON-RPC error go-sdk v1.8.0
// answers a call of a tool it does not have with (mcp/server.go).
const unknownToolPrefix = "unknown tool "

// answerOf reads what go-sdk answers the client with: an error is a
// JSON-RPC error, with the code of the *jsonrpc.Error in its chain (0
// without one, as go-sdk sends it); of a result, only a tools/call's is
// read.
func answerOf(method string, res mcp.Result, err error) coreotel.Answer[mcp.Content] {
	if err != nil {
		a := coreotel.Answer[mcp.Content]{Answer: pipeline.Answer{Err: true}}
		if pe, ok := envelope.As[*jsonrpc.Error](err); ok && pe != nil {
			a.Code = int(pe.Code)
			a.UnknownTool = method == coreotel.MethodCallTool && pe.Code == jsonrpc.CodeInvalidParams &&
				strings.HasPrefix(pe.Message, unknownToolPrefix)
		}
		return a
	}
	r, ok := res.(*mcp.CallToolResult)
	if !ok || r == nil {
		return coreotel.Answer[mcp.Content]{} // another method's result, or none: a success
	}
	return coreotel.Answer[mcp.Content]{Answer: gosdk.AnswerOf(r), Content: r.Content, Text: textOf}
}

// textOf returns the text of a text content item.
func textOf(c mcp.Content) (string, bool) {
	if t, ok := c.(*mcp.TextContent); ok && t != nil {
		return t.Text, true
	}
	return "", false
}

// supported is what go-sdk supports, newest first.
var supported = mcp.SupportedProtocolVersions()

// statelessVersion is where the initialize handshake ends: go-sdk
// negotiates no version from 2026-07-28 on through initialize.
const statelessVersion = "2026-07-28"

// negotiatedVersion is the protocol version in effect for req, never the
// client's own text: the version the request names or the session asked
// for at initialize when go-sdk supports it; for a session that asked for
// one it does not, the version go-sdk answered, its newest from before
// 2026-07-28 (a server narrowed by ServerOptions.SupportedProtocolVersions
// may have answered an older one); anything else is [OtherVersion].
func negotiatedVersion(req mcp.Request) string {
	r, ok := req.(interface{ ProtocolVersion() string })
	if !ok {
		return ""
	}
	v := r.ProtocolVersion() // the request's _meta, else the session's initialize
	var init *mcp.InitializeParams
	if s, ok := req.GetSession().(*mcp.ServerSession); ok && s != nil {
		init = s.InitializeParams()
	}
	if known := coreotel.KnownVersion(v, supported); known != coreotel.OtherVersion || init == nil || init.ProtocolVersion != v {
		return known
	}
	for _, known := range supported { // what go-sdk answered an unknown version at initialize
		if known < statelessVersion {
			return known
		}
	}
	return coreotel.OtherVersion
}
