package otel

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"time"

	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpguard/mcpguard/core/calllog"
	"github.com/mcpguard/mcpguard/core/envelope"
)

// Instrument holds the tracer and the histogram a front records its calls
// with, built once from the options.
type Instrument struct {
	o      *options
	tracer trace.Tracer
	hist   metric.Float64Histogram
	// The API's global delegating providers, while no SDK was registered
	// when the Instrument was built: until one is, nothing records.
	unsetTP trace.TracerProvider
	unsetMP metric.MeterProvider
	// noTraces, noMetrics: the provider is the API's no-op one.
	noTraces, noMetrics bool
}

// New builds the Instrument of the instrumentation scope named scope (the
// front's module path). It returns nil when both providers are the API's
// no-op ones: telemetry switched off, the front installs nothing.
func New(scope string, opts ...Option) *Instrument {
	o := evaluate(opts)
	_, noTraces := o.tp.(tracenoop.TracerProvider)
	_, noMetrics := o.mp.(metricnoop.MeterProvider)
	if noTraces && noMetrics {
		return nil
	}
	hist, err := o.mp.Meter(scope).Float64Histogram(durationMetric,
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
	in := &Instrument{o: o, tracer: o.tp.Tracer(scope), hist: hist, noTraces: noTraces, noMetrics: noMetrics}
	if isGlobalDelegate(o.tp) {
		in.unsetTP = o.tp
	}
	if isGlobalDelegate(o.mp) {
		in.unsetMP = o.mp
	}
	return in
}

// globalPackage holds the API's global delegating providers, which
// otel.GetTracerProvider and otel.GetMeterProvider return until an SDK is
// registered with otel.SetTracerProvider or otel.SetMeterProvider.
const globalPackage = "go.opentelemetry.io/otel/internal/global"

func isGlobalDelegate(p any) bool {
	t := reflect.TypeOf(p)
	return t != nil && t.Kind() == reflect.Pointer && t.Elem().PkgPath() == globalPackage
}

// Active reports whether anything would record a call now. It is false
// while both providers are the API's global ones and no SDK has been
// registered since the Instrument was built (the default of a program
// that configures no OpenTelemetry), so that a front then passes the call
// through at no cost; two atomic loads. Once an SDK is registered, the
// global providers delegate to it and Active is true.
func (in *Instrument) Active() bool {
	traces := !in.noTraces && (in.unsetTP == nil || otelapi.GetTracerProvider() != in.unsetTP)
	metrics := !in.noMetrics && (in.unsetMP == nil || otelapi.GetMeterProvider() != in.unsetMP)
	return traces || metrics
}

// Traces reports whether calls of method are traced and measured: the
// Instrument exists and [WithMethods] does not leave method out.
func (in *Instrument) Traces(method string) bool {
	return in != nil && (in.o.methods == nil || in.o.methods[method])
}

// RecordsResults reports whether [WithResults] asks for result text.
func (in *Instrument) RecordsResults() bool { return in.o.results }

// Transport is how a call reached the server, as network.transport names it.
type Transport int

// The transports a front can tell apart.
const (
	TransportUnknown Transport = iota // in-process, or the front cannot tell
	TransportHTTP                     // streamable HTTP or SSE: tcp, protocol http
	TransportStdio                    // a pipe
)

// Call is what a front reads of one request before it runs: everything the
// span and the metric say about it except the outcome.
type Call struct {
	Method          string         // mcp.method.name
	Tool            string         // gen_ai.tool.name, for tools/call
	Prompt          string         // gen_ai.prompt.name, for prompts/get
	URI             string         // mcp.resource.uri, before redaction, for resources/read
	ProtocolVersion string         // mcp.protocol.version, "" when unknown
	SessionID       string         // mcp.session.id, "" without sessions
	RequestID       string         // jsonrpc.request.id, "" when the front cannot see it
	Transport       Transport      // network.transport
	Meta            map[string]any // params._meta, where trace context travels
	// Arguments returns the arguments' JSON; only called with WithArguments.
	Arguments func() string
}

// Span is one call in flight: its span, and what its metric point carries.
type Span struct {
	in     *Instrument
	span   trace.Span
	common []attribute.KeyValue
	start  time.Time
	note   *calllog.Note // what the call's limits noted of it
}

// Start starts the SERVER span of c, as a child of a trace context sent in
// c.Meta, or else of the span in ctx. The returned context carries it, for
// the handler, and the call's calllog.Note, on which a limit notes a
// hold ([LimitAdmissionKey]). The function of [WithCallDetails], if any,
// fills c in first.
func (in *Instrument) Start(ctx context.Context, c *Call) (context.Context, Span) {
	start := time.Now()
	if in.o.details != nil {
		in.o.details(ctx, c)
	}
	if len(c.Tool) > maxToolName {
		c.Tool = OtherTool // no tool has such a name: it was invented
	}
	if len(c.Prompt) > maxToolName {
		c.Prompt = OtherTool
	}
	common := commonAttrs(c)
	name := c.Method
	switch {
	case c.Tool != "":
		name += " " + c.Tool
	case c.Prompt != "":
		name += " " + c.Prompt
	}
	ctx, span := in.tracer.Start(in.extract(ctx, c.Meta), name,
		trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(common...))
	if span.IsRecording() {
		in.spanAttrs(span, c)
	}
	ctx, note := calllog.Noting(ctx) // a hold is noted on it (core/limit)
	return ctx, Span{in: in, span: span, common: common, start: start, note: note}
}

// commonAttrs are the span's and the metric's attributes known before the
// call runs.
func commonAttrs(c *Call) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 7)
	attrs = append(attrs, mcpMethodNameKey.String(c.Method))
	if c.Method == MethodCallTool {
		attrs = append(attrs, genAIToolNameKey.String(c.Tool), attrExecuteTool)
	}
	if c.ProtocolVersion != "" {
		attrs = append(attrs, mcpProtocolVersionKey.String(c.ProtocolVersion))
	}
	switch c.Transport {
	case TransportHTTP:
		attrs = append(attrs, semconv.NetworkTransportTCP, semconv.NetworkProtocolName("http"))
	case TransportStdio:
		attrs = append(attrs, semconv.NetworkTransportPipe)
	}
	return attrs
}

// maxToolName is the longest tool name the MCP specification allows; a
// longer prompt name is treated alike.
const maxToolName = 128

// maxURI bounds mcp.resource.uri, whatever the client sent or the URI
// redactor returned.
const maxURI = 1 << 10

// spanAttrs are the span-only attributes: identifiers, unbounded in number,
// that have no place on a metric.
func (in *Instrument) spanAttrs(span trace.Span, c *Call) {
	if c.SessionID != "" {
		span.SetAttributes(mcpSessionIDKey.String(c.SessionID))
	}
	if c.RequestID != "" {
		span.SetAttributes(semconv.JSONRPCRequestID(c.RequestID))
	}
	if c.Prompt != "" {
		span.SetAttributes(genAIPromptNameKey.String(c.Prompt))
	}
	if c.URI != "" {
		if uri := in.o.uriRedactor(c.URI); uri != "" {
			if len(uri) > maxURI {
				uri = fmt.Sprintf("[not recorded: %d bytes]", len(uri))
			}
			span.SetAttributes(mcpResourceURIKey.String(uri))
		}
	}
	if in.o.arguments && c.Arguments != nil {
		span.SetAttributes(genAIToolCallArgumentsKey.String(in.capture(c.Arguments())))
	}
}

// Result records text as the call's gen_ai.tool.call.result, redacted and
// bounded, when [WithResults] asks for it and the span records.
func (s Span) Result(text string) {
	if s.in.o.results && s.span.IsRecording() {
		s.span.SetAttributes(genAIToolCallResultKey.String(s.in.capture(text)))
	}
}

// maxCapture bounds what WithArguments and WithResults record: larger
// values are recorded as their size.
const maxCapture = 64 << 10

func (in *Instrument) capture(text string) string {
	if len(text) > maxCapture {
		return fmt.Sprintf("[not recorded: %d bytes]", len(text))
	}
	return in.o.redactor.Text(text)
}

// Outcome is what a call ended as, in the conventions' terms and
// mcpguard's. The zero Outcome is a success.
type Outcome struct {
	// ErrorType is error.type: "tool_error", a JSON-RPC code, or "panic".
	ErrorType string
	// RPCCode is rpc.response.status_code, for a JSON-RPC error.
	RPCCode int
	// Code is mcpguard.error_type, the envelope's code.
	Code envelope.Code
	// IncidentID is mcpguard.incident_id, for an internal error.
	IncidentID string
	// UnknownTool marks a call of a tool the server does not have: its
	// name stays on the span but is [OtherTool] on the metric.
	UnknownTool bool
}

// ToolError is the outcome of a result with isError: true whose first text
// content is text ([End] reads it so): error.type=tool_error, with the envelope's code and
// incident ID when text is an envelope.
func ToolError(text string) Outcome {
	out := Outcome{ErrorType: errorTypeToolError}
	if env, ok := envelope.Parse(text); ok {
		out.Code, out.IncidentID = env.ErrorType, env.IncidentID
	}
	return out
}

// RPCError is the outcome of a JSON-RPC error with code.
func RPCError(code int) Outcome {
	return Outcome{ErrorType: strconv.Itoa(code), RPCCode: code}
}

// Panicked is the outcome of a panic that went on past the front: the
// span ends, without the panic value.
func Panicked() Outcome { return Outcome{ErrorType: errorTypePanic} }

// EndIfPanicking ends the span as [Panicked] unless *done: defer it
// around the handler, and set done when the handler returns. A panic then
// goes on past the front (mcp-go, or a recover layer outside), after its
// span ended without the panic value.
func (s Span) EndIfPanicking(ctx context.Context, done *bool) {
	if !*done {
		s.End(ctx, Panicked())
	}
}

// End ends the span with out and records the duration on the histogram.
func (s Span) End(ctx context.Context, out Outcome) {
	common := s.common
	if out.UnknownTool {
		s.span.SetName(MethodCallTool)
		common = withOtherTool(common)
	}
	if out.ErrorType != "" {
		extra := make([]attribute.KeyValue, 0, 3)
		extra = append(extra, semconv.ErrorTypeKey.String(out.ErrorType))
		if out.RPCCode != 0 {
			extra = append(extra, semconv.RPCResponseStatusCodeKey.String(strconv.Itoa(out.RPCCode)))
		}
		if out.Code != "" {
			extra = append(extra, ErrorTypeKey.String(string(out.Code)))
		}
		s.span.SetAttributes(extra...)
		if out.IncidentID != "" {
			s.span.SetAttributes(IncidentIDKey.String(out.IncidentID))
		}
		desc := out.ErrorType
		if out.Code != "" {
			desc = string(out.Code)
		}
		s.span.SetStatus(codes.Error, desc)
		common = append(common[:len(common):len(common)], extra...)
	}
	if a, held := s.note.Admission(); a != "" {
		s.span.SetAttributes(LimitAdmissionKey.String(a), LimitHeldKey.Int64(held.Milliseconds()))
		common = append(common[:len(common):len(common)], LimitAdmissionKey.String(a))
	}
	// The metric first: whoever sees the ended span (an exporter, a test
	// waiting for it) finds the call's point already recorded.
	if s.in.hist.Enabled(ctx) {
		s.in.hist.Record(ctx, time.Since(s.start).Seconds(), metric.WithAttributes(common...))
	}
	s.span.End()
}

// withOtherTool is common with the tool's name replaced by OtherTool.
func withOtherTool(common []attribute.KeyValue) []attribute.KeyValue {
	out := make([]attribute.KeyValue, len(common))
	for i, kv := range common {
		if kv.Key == genAIToolNameKey {
			kv = genAIToolNameKey.String(OtherTool)
		}
		out[i] = kv
	}
	return out
}

// RecordsArguments reports whether [WithArguments] asks for the arguments:
// a front sets [Call.Arguments] only then.
func (in *Instrument) RecordsArguments() bool { return in.o.arguments }
