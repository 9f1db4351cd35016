package otel

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	coreotel "github.com/mcpguard/mcpguard/core/otel"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/envelope"
)

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/mcpguard/mcpguard/otel"

// mcpguard's own attributes, beside the conventions' error.type=tool_error.
const (
	// ErrorTypeKey is the envelope's error_type, one of the seven codes, on
	// spans and metrics of failed calls.
	ErrorTypeKey = coreotel.ErrorTypeKey
	// IncidentIDKey is the envelope's incident_id, on spans of internal
	// errors only (never on metrics: every value is new).
	IncidentIDKey = coreotel.IncidentIDKey
)

// Middleware traces and measures every tool call by the OpenTelemetry
// semantic conventions for MCP. Add it before middleware.Default, so that
// it is outermost and records what the client finally receives:
//
//	s.Use(otel.Middleware())
//	s.Use(middleware.Default()...)
//
// Each call gets a SERVER span named "tools/call {tool}" with
// mcp.method.name, gen_ai.tool.name, gen_ai.operation.name=execute_tool,
// mcp.protocol.version, mcp.session.id (while the protocol has sessions),
// network.transport and, with [WithHooks], jsonrpc.request.id. A result
// with isError: true sets error.type=tool_error and the span status to
// Error, plus mcpguard.error_type (one of the seven codes) and, for an
// internal error, mcpguard.incident_id, which leads to the log record.
// Arguments and results are recorded only with [WithArguments] and
// [WithResults], redacted.
//
// The histogram mcp.server.operation.duration (seconds, the conventions'
// buckets) gets the same low-cardinality attributes: no session, request
// or incident ID, and never an argument value.
//
// A trace context the client sends in params._meta (traceparent,
// tracestate, baggage) becomes the span's parent.
//
// With both providers the API's no-op ones (go.opentelemetry.io/otel/trace/noop
// and metric/noop), or with [WithMethods] leaving tools/call out,
// Middleware returns the handler itself: telemetry switched off costs
// nothing.
func Middleware(opts ...Option) server.ToolHandlerMiddleware {
	in := coreotel.New(ScopeName, opts...)
	if !in.Traces(coreotel.MethodCallTool) {
		// Telemetry is off: nothing to record, so nothing to pay.
		return func(next server.ToolHandlerFunc) server.ToolHandlerFunc { return next }
	}
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
			if !in.Active() {
				return next(ctx, req) // no SDK registered yet: nothing records
			}
			call := toolCall(ctx, in, req)
			ctx, span := in.Start(ctx, &call)
			// Without a recover layer inside, a panic goes on to mcp-go;
			// the span still ends, without the panic value.
			completed := false
			defer span.EndIfPanicking(ctx, &completed)
			res, err = next(ctx, req)
			completed = true
			coreotel.End(ctx, span, answerOf(ctx, res, err))
			return res, err
		}
	}
}

// toolCall reads what the span says of req before it runs; what only
// the hooks saw ([WithHooks]) Start fills in.
func toolCall(ctx context.Context, in *coreotel.Instrument, req mcp.CallToolRequest) coreotel.Call {
	call := coreotel.Call{
		Method:          coreotel.MethodCallTool,
		Tool:            req.Params.Name,
		ProtocolVersion: protocolVersion(ctx, req.Header),
		SessionID:       sessionID(ctx),
		Transport:       transport(ctx, req.Header),
	}
	if req.Params.Meta != nil {
		call.Meta = req.Params.Meta.AdditionalFields
	}
	if in.RecordsArguments() {
		call.Arguments = func() string { return string(envelope.ArgumentsOf(req)) }
	}
	return call
}

// answerOf reads what mcp-go answers the client with: a Go error is a
// JSON-RPC error, with the code mcp-go gives it (server/handler_errors.go:
// -32042 for a URL elicitation before MCP 2026-07-28, -32603 otherwise).
func answerOf(ctx context.Context, res *mcp.CallToolResult, err error) coreotel.Answer[mcp.Content] {
	if err != nil {
		return coreotel.Answer[mcp.Content]{Answer: pipeline.Answer{Err: true}, Code: envelope.RPCCodeOf(ctx, err)}
	}
	if res == nil { // mcp-go answers neither a result nor an error with -32603
		return coreotel.Answer[mcp.Content]{Answer: pipeline.Answer{Err: true}, Code: mcp.INTERNAL_ERROR}
	}
	return coreotel.Answer[mcp.Content]{
		Answer:  envelope.AnswerOf(res, nil),
		Content: res.Content, Text: envelope.TextOf,
	}
}

// ResourceMiddleware traces and measures resources/read the way
// [Middleware] does tools/call: a SERVER span "resources/read" with
// mcp.resource.uri (see [WithURIRedactor]) and the metric, error.type the
// JSON-RPC code a failed read is answered with. Give it to the server:
//
//	s := server.NewMCPServer("shop", "1.0.0",
//		server.WithResourceHandlerMiddleware(otel.ResourceMiddleware()))
func ResourceMiddleware(opts ...Option) server.ResourceHandlerMiddleware {
	in := coreotel.New(ScopeName, opts...)
	if !in.Traces(coreotel.MethodReadResource) {
		return func(next server.ResourceHandlerFunc) server.ResourceHandlerFunc { return next }
	}
	return func(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
		return func(ctx context.Context, req mcp.ReadResourceRequest) (res []mcp.ResourceContents, err error) {
			if !in.Active() {
				return next(ctx, req)
			}
			call := coreotel.Call{
				Method:          coreotel.MethodReadResource,
				URI:             req.Params.URI,
				ProtocolVersion: protocolVersion(ctx, req.Header),
				SessionID:       sessionID(ctx),
				Transport:       transport(ctx, req.Header),
			}
			if req.Params.Meta != nil {
				call.Meta = req.Params.Meta.AdditionalFields
			}
			ctx, span := in.Start(ctx, &call)
			completed := false
			defer span.EndIfPanicking(ctx, &completed)
			res, err = next(ctx, req)
			completed = true
			out := coreotel.Outcome{}
			switch {
			case errors.Is(err, server.ErrResourceNotFound):
				out = coreotel.RPCError(mcp.RESOURCE_NOT_FOUND)
			case err != nil:
				out = coreotel.RPCError(mcp.INTERNAL_ERROR)
			}
			span.End(ctx, out)
			return res, err
		}
	}
}

func formatID(id any) string {
	switch v := id.(type) {
	case string:
		return v
	case float64:
		if v == float64(int64(v)) {
			return strconv.FormatInt(int64(v), 10)
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return fmt.Sprint(v)
	}
}
