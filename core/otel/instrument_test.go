package otel_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpguard/mcpguard/core/envelope"
	coreotel "github.com/mcpguard/mcpguard/core/otel"
	"github.com/mcpguard/mcpguard/core/otel/oteltest"
)

// token is a secret the default redactor masks.
const token = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"

// instrument returns an Instrument recording into a fresh Recorder.
func instrument(opts ...coreotel.Option) (*coreotel.Instrument, *oteltest.Recorder) {
	rec := oteltest.NewRecorder()
	return coreotel.New("example.com/front", append([]coreotel.Option{
		coreotel.WithTracerProvider(rec.TracerProvider), coreotel.WithMeterProvider(rec.MeterProvider),
	}, opts...)...), rec
}

// one records c ended with out, and returns its span.
func one(t *testing.T, c coreotel.Call, out coreotel.Outcome, opts ...coreotel.Option) (sdktrace.ReadOnlySpan, *oteltest.Recorder) {
	t.Helper()
	in, rec := instrument(opts...)
	ctx, span := in.Start(context.Background(), &c)
	span.End(ctx, out)
	return rec.Span(t), rec
}

// The span is named for its method and target, carries what the front
// knows of the call, and bounds what a client could make unbounded: a
// tool or prompt name longer than any real one, a long URI.
func TestStartNamesTheSpanAndBoundsWhatTheClientSent(t *testing.T) {
	long := strings.Repeat("t", 129)
	cases := []struct {
		name     string
		call     coreotel.Call
		span     string
		attrs    map[string]string
		excluded []string
	}{
		{"tool over HTTP", coreotel.Call{Method: coreotel.MethodCallTool, Tool: "shop_search", SessionID: "s-1", RequestID: "7",
			ProtocolVersion: "2025-06-18", Transport: coreotel.TransportHTTP},
			"tools/call shop_search", map[string]string{
				oteltest.MethodName: "tools/call", oteltest.ToolName: "shop_search", oteltest.OperationName: "execute_tool",
				oteltest.SessionID: "s-1", oteltest.RequestID: "7", oteltest.ProtocolVersion: "2025-06-18",
				oteltest.Transport: "tcp", oteltest.ProtocolName: "http",
			}, nil},
		{"prompt over stdio", coreotel.Call{Method: coreotel.MethodGetPrompt, Prompt: "greet", Transport: coreotel.TransportStdio},
			"prompts/get greet", map[string]string{oteltest.MethodName: "prompts/get", "gen_ai.prompt.name": "greet", oteltest.Transport: "pipe"},
			[]string{oteltest.ToolName, oteltest.ProtocolName}},
		{"an invented tool name", coreotel.Call{Method: coreotel.MethodCallTool, Tool: long},
			"tools/call _OTHER", map[string]string{oteltest.ToolName: coreotel.OtherTool}, nil},
		{"an invented prompt name", coreotel.Call{Method: coreotel.MethodGetPrompt, Prompt: long},
			"prompts/get _OTHER", map[string]string{"gen_ai.prompt.name": coreotel.OtherTool}, nil},
		{"a resource", coreotel.Call{Method: coreotel.MethodReadResource, URI: "https://shop.example/orders/1"},
			"resources/read", map[string]string{oteltest.ResourceURI: "https://shop.example/orders/1"}, []string{oteltest.Transport}},
		{"a URI over 1 KiB", coreotel.Call{Method: coreotel.MethodReadResource, URI: "https://shop.example/" + strings.Repeat("a", 1<<10)},
			"resources/read", map[string]string{oteltest.ResourceURI: "[not recorded: 1045 bytes]"}, nil},
	}
	for _, c := range cases {
		span, _ := one(t, c.call, coreotel.Outcome{})
		if span.Name() != c.span || span.SpanKind() != trace.SpanKindServer || span.Status().Code != codes.Unset {
			t.Errorf("%s: span %q %v %v, want %q, a server span without status", c.name, span.Name(), span.SpanKind(), span.Status(), c.span)
		}
		got := oteltest.Values(span.Attributes())
		for k, v := range c.attrs {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q (all: %v)", c.name, k, got[k], v, got)
			}
		}
		for _, k := range c.excluded {
			if _, ok := got[k]; ok {
				t.Errorf("%s: %s recorded: %v", c.name, k, got)
			}
		}
	}
}

// A JSON-RPC error, a panic and an internal error each end the span in
// error with their own error.type; identifiers stay off the metric.
func TestEndRecordsEachOutcome(t *testing.T) {
	call := coreotel.Call{Method: coreotel.MethodCallTool, Tool: "shop_search"}
	internal := envelope.NewRenderer(envelope.WithLogger(slog.New(slog.DiscardHandler))).Error(context.Background(), envelope.Call{Tool: "shop_search"}, errors.New("disk full"))
	cases := []struct {
		name        string
		out         coreotel.Outcome
		status      string
		span, point map[string]string
	}{
		{"JSON-RPC error", coreotel.RPCError(-32602), "-32602",
			map[string]string{oteltest.ErrorType: "-32602", oteltest.RPCStatusCode: "-32602"},
			map[string]string{oteltest.ErrorType: "-32602", oteltest.RPCStatusCode: "-32602"}},
		{"panic", coreotel.Panicked(), "panic",
			map[string]string{oteltest.ErrorType: "panic"}, map[string]string{oteltest.ErrorType: "panic"}},
		{"internal error", coreotel.ToolError(string(internal.Marshal())), "internal_error",
			map[string]string{oteltest.ErrorType: "tool_error", oteltest.GuardErrorType: "internal_error", oteltest.GuardIncidentID: internal.IncidentID},
			map[string]string{oteltest.ErrorType: "tool_error", oteltest.GuardErrorType: "internal_error"}},
		{"a tool error that is no envelope", coreotel.ToolError("it broke"), "tool_error",
			map[string]string{oteltest.ErrorType: "tool_error"}, map[string]string{oteltest.ErrorType: "tool_error"}},
	}
	for _, c := range cases {
		span, rec := one(t, call, c.out)
		if span.Status().Code != codes.Error || span.Status().Description != c.status {
			t.Errorf("%s: status %v, want Error %q", c.name, span.Status(), c.status)
		}
		got := oteltest.Values(span.Attributes())
		for k, v := range c.span {
			if got[k] != v {
				t.Errorf("%s: span %s = %q, want %q", c.name, k, got[k], v)
			}
		}
		p := rec.Point(t, true)
		point := oteltest.Values(p.Attributes.ToSlice())
		for k, v := range c.point {
			if point[k] != v {
				t.Errorf("%s: metric %s = %q, want %q", c.name, k, point[k], v)
			}
		}
		if _, ok := point[oteltest.GuardIncidentID]; ok {
			t.Errorf("%s: an incident ID on the metric: %v", c.name, point)
		}
		if _, ok := got[oteltest.GuardErrorType]; ok != (c.out.Code != "") {
			t.Errorf("%s: mcpguard.error_type recorded %v, want %v", c.name, ok, c.out.Code != "")
		}
	}
}

// A tool the server does not have keeps its name on the span, but is
// OtherTool on the metric, and the span is named for the method alone.
func TestEndOfAnUnknownTool(t *testing.T) {
	out := coreotel.RPCError(-32602)
	out.UnknownTool = true
	span, rec := one(t, coreotel.Call{Method: coreotel.MethodCallTool, Tool: "made_up"}, out)
	if span.Name() != "tools/call" || oteltest.Values(span.Attributes())[oteltest.ToolName] != "made_up" {
		t.Errorf("span %q %v", span.Name(), span.Attributes())
	}
	p := rec.Point(t, true)
	if got := oteltest.Values(p.Attributes.ToSlice())[oteltest.ToolName]; got != coreotel.OtherTool {
		t.Errorf("metric gen_ai.tool.name = %q, want %q", got, coreotel.OtherTool)
	}
}

// EndIfPanicking ends the span as a panic only when the handler did not
// return.
func TestEndIfPanicking(t *testing.T) {
	in, rec := instrument()
	for _, returned := range []bool{true, false} {
		func() {
			ctx, span := in.Start(context.Background(), &coreotel.Call{Method: coreotel.MethodCallTool, Tool: "t"})
			done := returned
			defer span.EndIfPanicking(ctx, &done)
		}()
	}
	spans := rec.Spans.GetSpans()
	if len(spans) != 1 || oteltest.Values(spans[0].Attributes)[oteltest.ErrorType] != "panic" {
		t.Fatalf("spans %v: want only the handler that did not return, ended as a panic", spans)
	}
}

// Arguments and results are recorded only when asked for, redacted, and
// as their size when over 64 KiB; a front's Arguments function is not
// called otherwise.
func TestArgumentsAndResultsAreOptIn(t *testing.T) {
	var asked atomic.Int64
	args := func(s string) func() string { return func() string { asked.Add(1); return s } }
	call := func(a string) coreotel.Call {
		return coreotel.Call{Method: coreotel.MethodCallTool, Tool: "t", Arguments: args(a)}
	}
	record := func(c coreotel.Call, result string, opts ...coreotel.Option) map[string]string {
		in, rec := instrument(opts...)
		ctx, span := in.Start(context.Background(), &c)
		span.Result(result)
		span.End(ctx, coreotel.Outcome{})
		return oteltest.Values(rec.Span(t).Attributes())
	}
	got := record(call(`{"token":"`+token+`"}`), "key "+token)
	if _, ok := got[oteltest.Arguments]; ok || asked.Load() != 0 {
		t.Errorf("without WithArguments: %v, Arguments called %d times", got, asked.Load())
	}
	if _, ok := got[oteltest.Result]; ok {
		t.Errorf("without WithResults: %v", got)
	}
	got = record(call(`{"token":"`+token+`"}`), "key "+token, coreotel.WithArguments(), coreotel.WithResults())
	if a := got[oteltest.Arguments]; a == "" || strings.Contains(a, token) || !strings.Contains(a, `"token"`) {
		t.Errorf("arguments %q: want them recorded, the token redacted", a)
	}
	if r := got[oteltest.Result]; r != "key [REDACTED]" {
		t.Errorf("result %q: want it recorded, the token redacted", r)
	}
	big := strings.Repeat("x", 64<<10+1)
	got = record(call(big), big, coreotel.WithArguments(), coreotel.WithResults())
	if want := "[not recorded: 65537 bytes]"; got[oteltest.Arguments] != want || got[oteltest.Result] != want {
		t.Errorf("over 64 KiB: %q, %q, want %q", got[oteltest.Arguments], got[oteltest.Result], want)
	}
}

// A trace context the client sent in params._meta is the span's parent;
// without one, the span in ctx is.
func TestTraceContextFromMeta(t *testing.T) {
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	span, _ := one(t, coreotel.Call{Method: coreotel.MethodCallTool, Tool: "t", Meta: map[string]any{
		"traceparent": "00-" + traceID + "-" + parentID + "-01", "progressToken": 5,
	}}, coreotel.Outcome{})
	if span.SpanContext().TraceID().String() != traceID || span.Parent().SpanID().String() != parentID || !span.Parent().IsRemote() {
		t.Errorf("span %s, parent %s: want the trace and parent of _meta", span.SpanContext().TraceID(), span.Parent().SpanID())
	}

	in, rec := instrument()
	outer, _ := rec.TracerProvider.Tracer("http").Start(context.Background(), "POST /mcp")
	ctx, s := in.Start(outer, &coreotel.Call{Method: coreotel.MethodCallTool, Tool: "t"})
	s.End(ctx, coreotel.Outcome{})
	got := rec.Spans.GetSpans()[0]
	if got.Parent.SpanID() != trace.SpanContextFromContext(outer).SpanID() {
		t.Errorf("without _meta the parent is %s, want the span in ctx", got.Parent.SpanID())
	}
}

// keysPropagator reads every key of the carrier, and tries to write one.
type keysPropagator struct{ keys *[]string }

func (p keysPropagator) Inject(context.Context, propagation.TextMapCarrier) {}
func (p keysPropagator) Fields() []string                                   { return nil }
func (p keysPropagator) Extract(ctx context.Context, c propagation.TextMapCarrier) context.Context {
	c.Set("traceparent", "written")
	*p.keys = c.Keys()
	return ctx
}

// A propagator reads every key of _meta, and cannot write into the
// client's request.
func TestAPropagatorReadsMetaAndNeverWritesIt(t *testing.T) {
	var keys []string
	meta := map[string]any{"traceparent": "x", "baggage": "k=v"}
	one(t, coreotel.Call{Method: coreotel.MethodCallTool, Tool: "t", Meta: meta}, coreotel.Outcome{},
		coreotel.WithPropagator(keysPropagator{&keys}))
	if len(keys) != 2 || !(keys[0] == "traceparent" || keys[1] == "traceparent") {
		t.Errorf("keys %v, want the two of _meta", keys)
	}
	if meta["traceparent"] != "x" {
		t.Errorf("_meta was written: %v", meta)
	}
}

func TestKnownVersion(t *testing.T) {
	known := []string{"2025-06-18", "2025-11-25"}
	for v, want := range map[string]string{
		"":                        "",
		"2025-06-18":              "2025-06-18",
		"2025-11-25":              "2025-11-25",
		"2099-01-01":              coreotel.OtherVersion,
		strings.Repeat("v", 5000): coreotel.OtherVersion,
	} {
		if got := coreotel.KnownVersion(v, known); got != want {
			t.Errorf("KnownVersion(%.20q) = %q, want %q", v, got, want)
		}
	}
}

// A record logged with a span in its context leads to its trace, through
// WithAttrs and WithGroup too; one without a span carries no IDs.
func TestLogHandlerAddsTheTrace(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(coreotel.LogHandler(slog.NewJSONHandler(&buf, nil)))
	in, rec := instrument()
	ctx, span := in.Start(context.Background(), &coreotel.Call{Method: coreotel.MethodCallTool, Tool: "t"})
	log.With("tool", "t").WithGroup("call").InfoContext(ctx, "incident", "id", "42")
	log.InfoContext(context.Background(), "no span")
	span.End(ctx, coreotel.Outcome{})
	sc := rec.Span(t).SpanContext()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("log: %s", buf.String())
	}
	for _, want := range []string{`"tool":"t"`, `"trace_id":"` + sc.TraceID().String() + `"`, `"span_id":"` + sc.SpanID().String() + `"`} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("record with a span: %s, want %s", lines[0], want)
		}
	}
	if strings.Contains(lines[1], coreotel.TraceIDKey) || strings.Contains(lines[1], coreotel.SpanIDKey) {
		t.Errorf("record without a span: %s", lines[1])
	}
}

// brokenMeter fails to create any histogram.
type brokenMeter struct{ metricnoop.Meter }

func (brokenMeter) Float64Histogram(string, ...metric.Float64HistogramOption) (metric.Float64Histogram, error) {
	return nil, errors.New("no histograms today")
}

type brokenMeterProvider struct{ metricnoop.MeterProvider }

func (brokenMeterProvider) Meter(string, ...metric.MeterOption) metric.Meter { return brokenMeter{} }

// Telemetry never fails the server: with no-op providers New returns nil;
// a histogram that cannot be created is reported to OpenTelemetry's error
// handler, and the spans are recorded all the same.
func TestNewNeverFailsTheServer(t *testing.T) {
	if in := coreotel.New("x", coreotel.WithTracerProvider(tracenoop.NewTracerProvider()),
		coreotel.WithMeterProvider(metricnoop.NewMeterProvider())); in != nil {
		t.Error("no-op providers: want nil")
	}
	var reported []error
	prev := otelapi.GetErrorHandler()
	otelapi.SetErrorHandler(otelapi.ErrorHandlerFunc(func(err error) { reported = append(reported, err) }))
	t.Cleanup(func() { otelapi.SetErrorHandler(prev) })
	rec := oteltest.NewRecorder()
	in := coreotel.New("x", coreotel.WithTracerProvider(rec.TracerProvider), coreotel.WithMeterProvider(brokenMeterProvider{}))
	if in == nil || !in.Active() {
		t.Fatal("a broken meter turned telemetry off")
	}
	ctx, span := in.Start(context.Background(), &coreotel.Call{Method: coreotel.MethodCallTool, Tool: "t"})
	span.End(ctx, coreotel.Outcome{})
	if rec.Span(t).Name() != "tools/call t" {
		t.Error("no span recorded")
	}
	if len(reported) != 1 || !strings.Contains(reported[0].Error(), "mcp.server.operation.duration") {
		t.Errorf("reported %v, want the histogram's error", reported)
	}
}
