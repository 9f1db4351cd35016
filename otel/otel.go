package otel

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpguard/mcpguard/envelope"
)

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/mcpguard/mcpguard/otel"

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
// and metric/noop), Middleware returns the handler itself: telemetry
// switched off costs nothing.
func Middleware(opts ...Option) server.ToolHandlerMiddleware {
	o := evaluate(opts)
	if isNoop(o.tp, o.mp) {
		// Telemetry is off: nothing to record, so nothing to pay.
		return func(next server.ToolHandlerFunc) server.ToolHandlerFunc { return next }
	}
	tracer := o.tp.Tracer(ScopeName)
	hist, err := o.mp.Meter(ScopeName).Float64Histogram(durationMetric,
		metric.WithUnit(durationUnit),
		metric.WithDescription(durationDescription),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		// As the OpenTelemetry API does: report the error, carry on with
		// what we got (or nothing), never fail the server over telemetry.
		otelapi.Handle(fmt.Errorf("mcpguard/otel: creating %s: %w", durationMetric, err))
		if hist == nil {
			hist = metricnoop.Float64Histogram{}
		}
	}
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
			start := time.Now()
			callCtx := ctx // the key the hooks stored the request ID under
			common := o.commonAttrs(ctx, req)
			ctx, span := tracer.Start(o.extract(ctx, req), methodToolsCall+" "+req.Params.Name,
				trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(common...))
			if span.IsRecording() {
				o.startAttrs(callCtx, span, req)
			}
			completed := false
			defer func() {
				if !completed {
					// Without a recover layer inside, the panic goes on to
					// mcp-go; the span still ends, without the panic value.
					o.finish(ctx, span, hist, start, common, outcome{errorType: "panic"})
				}
			}()
			res, err = next(ctx, req)
			completed = true
			if o.results && err == nil && span.IsRecording() {
				o.recordResult(span, res)
			}
			o.finish(ctx, span, hist, start, common, o.classify(res, err))
			return res, err
		}
	}
}

// isNoop reports whether both providers are the API's no-op ones.
func isNoop(tp trace.TracerProvider, mp metric.MeterProvider) bool {
	_, noTraces := tp.(tracenoop.TracerProvider)
	_, noMetrics := mp.(metricnoop.MeterProvider)
	return noTraces && noMetrics
}

// commonAttrs are the span's and the metric's attributes known before the
// call runs.
func (o *options) commonAttrs(ctx context.Context, req mcp.CallToolRequest) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 7)
	attrs = append(attrs, attrToolsCall, genAIToolNameKey.String(req.Params.Name), attrExecuteTool)
	v := protocolVersion(ctx, req)
	if v == "" && o.ids != nil {
		v = o.ids.version(sessionID(ctx))
	}
	if v != "" {
		attrs = append(attrs, mcpProtocolVersionKey.String(v))
	}
	switch transport(ctx, req) {
	case transportHTTP:
		attrs = append(attrs, semconv.NetworkTransportTCP, semconv.NetworkProtocolName("http"))
	case transportStdio:
		attrs = append(attrs, semconv.NetworkTransportPipe)
	}
	return attrs
}

// startAttrs are the span-only attributes: unbounded identifiers that have
// no place on a metric.
func (o *options) startAttrs(ctx context.Context, span trace.Span, req mcp.CallToolRequest) {
	if id := sessionID(ctx); id != "" {
		span.SetAttributes(mcpSessionIDKey.String(id))
	}
	if o.ids != nil {
		if id, ok := o.ids.take(ctx); ok {
			span.SetAttributes(semconv.JSONRPCRequestID(formatID(id)))
		}
	}
	if o.arguments {
		span.SetAttributes(genAIToolCallArgumentsKey.String(o.capture(arguments(req))))
	}
}

// outcome is what a call ended as, in the conventions' terms and mcpguard's.
type outcome struct {
	errorType  string // error.type: tool_error, a JSON-RPC code, or panic
	rpcCode    int    // rpc.response.status_code, for a JSON-RPC error
	code       envelope.Code
	incidentID string
}

func (o *options) classify(res *mcp.CallToolResult, err error) outcome {
	if err != nil {
		code := mcp.INTERNAL_ERROR
		_, isValue := envelope.As[mcp.URLElicitationRequiredError](err)
		up, isPointer := envelope.As[*mcp.URLElicitationRequiredError](err)
		if isValue || (isPointer && up != nil) {
			code = mcp.URL_ELICITATION_REQUIRED
		}
		return outcome{errorType: strconv.Itoa(code), rpcCode: code}
	}
	if res == nil || !res.IsError {
		return outcome{}
	}
	out := outcome{errorType: errorTypeToolError}
	if env, ok := envelope.FromResult(res); ok {
		out.code, out.incidentID = env.ErrorType, env.IncidentID
	}
	return out
}

func (o *options) finish(ctx context.Context, span trace.Span, hist metric.Float64Histogram, start time.Time, common []attribute.KeyValue, out outcome) {
	if out.errorType != "" {
		extra := make([]attribute.KeyValue, 0, 3)
		extra = append(extra, semconv.ErrorTypeKey.String(out.errorType))
		if out.rpcCode != 0 {
			extra = append(extra, semconv.RPCResponseStatusCodeKey.String(strconv.Itoa(out.rpcCode)))
		}
		if out.code != "" {
			extra = append(extra, ErrorTypeKey.String(string(out.code)))
		}
		span.SetAttributes(extra...)
		if out.incidentID != "" {
			span.SetAttributes(IncidentIDKey.String(out.incidentID))
		}
		desc := out.errorType
		if out.code != "" {
			desc = string(out.code)
		}
		span.SetStatus(codes.Error, desc)
		common = append(common[:len(common):len(common)], extra...)
	}
	span.End()
	if hist.Enabled(ctx) {
		hist.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(common...))
	}
}

// maxCapture bounds what WithArguments and WithResults record: larger
// values are recorded as their size.
const maxCapture = 64 << 10

func (o *options) capture(text string) string {
	if len(text) > maxCapture {
		return fmt.Sprintf("[not recorded: %d bytes]", len(text))
	}
	return o.redactor.Text(text)
}

func arguments(req mcp.CallToolRequest) string {
	if len(req.Params.RawArguments) > 0 {
		return string(req.Params.RawArguments)
	}
	b, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return ""
	}
	return string(b)
}

func (o *options) recordResult(span trace.Span, res *mcp.CallToolResult) {
	if res == nil {
		return
	}
	var text string
	for _, c := range res.Content {
		switch t := c.(type) {
		case mcp.TextContent:
			text += t.Text
		case *mcp.TextContent:
			if t != nil {
				text += t.Text
			}
		}
	}
	span.SetAttributes(genAIToolCallResultKey.String(o.capture(text)))
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
