package oteltest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// The OpenTelemetry semantic conventions for MCP, as the tests check them:
// names written out here, independently of the package's own constants, so
// that a renamed constant cannot pass unnoticed.
const (
	MethodName      = "mcp.method.name"
	ToolName        = "gen_ai.tool.name"
	OperationName   = "gen_ai.operation.name"
	RequestID       = "jsonrpc.request.id"
	ProtocolVersion = "mcp.protocol.version"
	SessionID       = "mcp.session.id"
	Transport       = "network.transport"
	ProtocolName    = "network.protocol.name"
	ResourceURI     = "mcp.resource.uri"
	ErrorType       = "error.type"
	RPCStatusCode   = "rpc.response.status_code"
	Arguments       = "gen_ai.tool.call.arguments"
	Result          = "gen_ai.tool.call.result"
	GuardErrorType  = "mcpguard.error_type"
	GuardIncidentID = "mcpguard.incident_id"
	LimitAdmission  = "mcpguard.limit.admission"
	LimitHeldMS     = "mcpguard.limit.held_ms"

	Metric = "mcp.server.operation.duration"
)

// Buckets are the conventions' explicit bucket boundaries for Metric.
var Buckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Secret is in every error message and panic value of the table's cases,
// and ArgumentValue is the value of the argument every front's test sends:
// neither may appear in any attribute.
const (
	Secret        = "hunter2-0f9e8d"
	ArgumentValue = "argument-value-7c1b"
)

// Kind is what a case's handler does.
type Kind int

// The kinds of case.
const (
	Succeed         Kind = iota // returns a text result
	Fail                        // returns Case.Err
	Panic                       // panics with a value holding Secret
	Hang                        // waits for its context, under a 1 ms Timeout
	RateLimited                 // succeeds, under a Rate of one call an hour
	Texts                       // returns TextItems: two text items, an image between them
	Coded                       // returns the error its SDK sends with its own JSON-RPC code, CodedCode where it can
	ForeignEnvelope             // returns ForeignResult's isError result, built without the chain
)

// TextItems are the texts of a Texts case's result, in order; an image
// (ImageData, image/png) sits between them.
var TextItems = []string{"first line", "second line"}

// ImageData is the image item's base64 data in results the cases build.
const ImageData = "aGk="

// CodedCode is the JSON-RPC code a Coded case's error asks for: -32042,
// URL elicitation required, the one code mcp-go lets a handler choose
// (and only before MCP 2026-07-28).
const CodedCode = -32042

// ForeignText and ForeignStructured are a ForeignEnvelope case's result:
// the first text item is an envelope of not_found, and the structured
// content one of access_denied, as a handler (or an upstream) may send
// them when no chain renders its failures. The telemetry reads the first
// text item, where every consumer's error result carries its envelope.
const (
	ForeignText       = `{"success":false,"error_type":"not_found","tool":"shop_tool","message":"no order 42","retryable":false}`
	ForeignStructured = `{"success":false,"error_type":"access_denied","tool":"shop_tool","message":"forbidden","retryable":false}`
)

// Case is one outcome each front records alike.
type Case struct {
	Name string
	Kind Kind
	Err  error         // for Fail
	Code envelope.Code // the envelope's code; "" for a success
	// Results: the front records results ([WithResults] of core/otel).
	Results bool
	// Result is the gen_ai.tool.call.result the span carries, "" for none:
	// only a success's, its text items joined with a line break.
	Result string
}

// Calls is how many calls the case makes: the last is the one recorded.
func (c Case) Calls() int {
	if c.Kind == RateLimited {
		return 2
	}
	return 1
}

// Cases are the outcomes of a tools/call behind the front's recommended
// chain, one per envelope code, a panic, a timeout and a rate limit.
func Cases() []Case {
	wrap := func(err error) error { return fmt.Errorf("card %s: %w", Secret, err) }
	return []Case{
		{Name: "success", Kind: Succeed},
		{Name: "authentication_failed", Kind: Fail, Err: wrap(envelope.ErrAuthenticationFailed), Code: envelope.AuthenticationFailed},
		{Name: "access_denied", Kind: Fail, Err: wrap(envelope.ErrAccessDenied), Code: envelope.AccessDenied},
		{Name: "not_found", Kind: Fail, Err: wrap(envelope.ErrNotFound), Code: envelope.NotFound},
		{Name: "configuration_error", Kind: Fail, Err: wrap(envelope.ErrConfiguration), Code: envelope.ConfigurationError},
		{Name: "validation_error", Kind: Fail, Err: wrap(envelope.ErrValidation), Code: envelope.ValidationError},
		{Name: "execution_failed", Kind: Fail, Err: wrap(envelope.ErrExecutionFailed), Code: envelope.ExecutionFailed},
		{Name: "internal_error", Kind: Fail, Err: errors.New("dial postgres://app:" + Secret + "@db/shop"), Code: envelope.InternalError},
		{Name: "panic", Kind: Panic, Code: envelope.InternalError},
		{Name: "timeout", Kind: Hang, Code: envelope.ExecutionFailed},
		{Name: "rate limited", Kind: RateLimited, Code: envelope.ExecutionFailed},
		// With results recorded: a success's text items joined with a line
		// break (pipeline.JoinText), and nothing of a failure's.
		{Name: "success, results recorded", Kind: Texts, Results: true, Result: strings.Join(TextItems, "\n")},
		{Name: "failure, results recorded", Kind: Fail, Err: wrap(envelope.ErrNotFound), Code: envelope.NotFound, Results: true},
	}
}

// BareCases are the outcomes of a tools/call with the front's telemetry
// layer and no chain inside it: what its SDK itself answers the client.
// A front's test checks each with [CheckBare], given the code of the
// JSON-RPC error the client received.
func BareCases() []Case {
	return []Case{
		{Name: "plain error", Kind: Fail, Err: errors.New("dial postgres://app:" + Secret + "@db/shop")},
		{Name: "coded error", Kind: Coded},
		{Name: "foreign envelope", Kind: ForeignEnvelope, Code: envelope.NotFound},
	}
}

// CheckBare asserts what the one recorded tools/call of a [BareCases]
// case c recorded: for a JSON-RPC error, error.type and
// rpc.response.status_code are rpcCode, the code the client received
// (-32603, internal error, when it received none or 0: go-sdk sends a
// plain Go error with code 0), and no envelope's code; for an error
// result, tool_error and the code of the envelope in its first text item.
func CheckBare(t testing.TB, r *Recorder, c Case, rpcCode int) {
	t.Helper()
	span := r.Span(t)
	attrs := Values(span.Attributes())
	want := map[string]string{ErrorType: "tool_error", GuardErrorType: string(c.Code)}
	if c.Code == "" {
		if rpcCode == 0 {
			rpcCode = -32603
		}
		code := fmt.Sprint(rpcCode)
		want = map[string]string{ErrorType: code, RPCStatusCode: code, GuardErrorType: ""}
	}
	for k, v := range want {
		check(t, k, attrs[k], v)
	}
	check(t, "span status", span.Status().Code, codes.Error)
	NoLeak(t, span, r.Point(t, true))
}

// Recorder records into the real OpenTelemetry SDK.
type Recorder struct {
	Spans          *tracetest.InMemoryExporter
	Reader         *sdkmetric.ManualReader
	TracerProvider *sdktrace.TracerProvider
	MeterProvider  *sdkmetric.MeterProvider
}

// NewRecorder returns a Recorder whose spans are exported synchronously.
func NewRecorder() *Recorder {
	r := &Recorder{Spans: tracetest.NewInMemoryExporter(), Reader: sdkmetric.NewManualReader()}
	r.TracerProvider = sdktrace.NewTracerProvider(sdktrace.WithSyncer(r.Spans))
	r.MeterProvider = sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.Reader))
	return r
}

// Span returns the one span recorded since the last Reset.
func (r *Recorder) Span(t testing.TB) sdktrace.ReadOnlySpan {
	t.Helper()
	spans := r.Spans.GetSpans().Snapshots()
	if len(spans) != 1 {
		t.Fatalf("%d spans recorded, want one per call: %v", len(spans), names(spans))
	}
	return spans[0]
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	out := make([]string, 0, len(spans))
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}

// Points returns every data point of Metric collected so far.
func (r *Recorder) Points(t testing.TB) []metricdata.HistogramDataPoint[float64] {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var out []metricdata.HistogramDataPoint[float64]
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != Metric {
				continue
			}
			if m.Unit != "s" {
				t.Errorf("%s has unit %q, want s", Metric, m.Unit)
			}
			h, ok := m.Data.(metricdata.Histogram[float64])
			if !ok {
				t.Fatalf("%s is a %T, want a float64 histogram", Metric, m.Data)
			}
			out = append(out, h.DataPoints...)
		}
	}
	return out
}

// Point returns the data point of the failed tools/call requests, or of
// the successful ones.
func (r *Recorder) Point(t testing.TB, failed bool) metricdata.HistogramDataPoint[float64] {
	t.Helper()
	return r.PointOf(t, "tools/call", failed)
}

// PointOf returns the data point of the failed requests of method, or of
// the successful ones.
func (r *Recorder) PointOf(t testing.TB, method string, failed bool) metricdata.HistogramDataPoint[float64] {
	t.Helper()
	for _, p := range r.Points(t) {
		m, _ := p.Attributes.Value(MethodName)
		if _, ok := p.Attributes.Value(ErrorType); ok == failed && m.AsString() == method {
			return p
		}
	}
	t.Fatalf("no %s point of %s with failed=%v", Metric, method, failed)
	return metricdata.HistogramDataPoint[float64]{}
}

// CheckHeld asserts what two tools/call of a 2026-07-28 client, one
// after the other over a rate of one call with no second token for a
// moment, recorded: the first span says nothing of a limit; the second,
// held until its token and then a success, carries
// mcpguard.limit.admission=held and a positive mcpguard.limit.held_ms;
// the metric has a point of held calls (admission, never held_ms).
func CheckHeld(t testing.TB, r *Recorder) {
	t.Helper()
	var calls []sdktrace.ReadOnlySpan
	for _, s := range r.Spans.GetSpans().Snapshots() {
		if strings.HasPrefix(s.Name(), "tools/call") {
			calls = append(calls, s)
		}
	}
	if len(calls) != 2 {
		t.Fatalf("%d tools/call spans recorded, want 2: %v", len(calls), names(calls))
	}
	first, second := Values(calls[0].Attributes()), Values(calls[1].Attributes())
	for _, k := range []string{LimitAdmission, LimitHeldMS} {
		check(t, "the first call's "+k, first[k], "")
	}
	check(t, "the held call's "+LimitAdmission, second[LimitAdmission], "held")
	check(t, "the held call's "+ErrorType, second[ErrorType], "")
	var held int64
	for _, kv := range calls[1].Attributes() {
		if kv.Key == LimitHeldMS {
			held = kv.Value.AsInt64()
		}
	}
	if held <= 0 {
		t.Errorf("the held call's %s is %d (%q), want the milliseconds it waited", LimitHeldMS, held, second[LimitHeldMS])
	}
	points := 0
	for _, p := range r.Points(t) {
		if v, ok := p.Attributes.Value(LimitAdmission); ok && v.AsString() == "held" {
			points++
		}
		if _, ok := p.Attributes.Value(LimitHeldMS); ok {
			t.Errorf("%s on the metric: every value is a new series", LimitHeldMS)
		}
	}
	if points != 1 {
		t.Errorf("%d points of held calls on %s, want 1", points, Metric)
	}
}

// Keys returns the sorted keys of kvs.
func Keys(kvs []attribute.KeyValue) []string {
	out := make([]string, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, string(kv.Key))
	}
	slices.Sort(out)
	return out
}

// Values returns kvs as a map of their values' text.
func Values(kvs []attribute.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		out[string(kv.Key)] = kv.Value.String()
	}
	return out
}

// Expect is what a front knows of the recorded tools/call: "" for what
// it cannot know, which must then be absent.
type Expect struct {
	Tool            string
	RequestID       string
	ProtocolVersion string
	SessionID       string
	Transport       string // "pipe", "tcp" or ""
}

// CheckCall asserts what the one recorded tools/call of case c recorded, on
// its span and on its metric point. env is the envelope the client
// received, nil for a success.
func CheckCall(t testing.TB, r *Recorder, c Case, env *envelope.Envelope, want Expect) {
	t.Helper()
	span := r.Span(t)
	check(t, "span name", span.Name(), "tools/call "+want.Tool)
	check(t, "span kind", span.SpanKind(), trace.SpanKindServer)
	if len(span.Events()) != 0 {
		t.Errorf("span has events %v: nothing that could hold a stack", span.Events())
	}
	spanWant, metricWant := expected(want)
	if c.Code != "" {
		if env == nil || env.ErrorType != c.Code {
			t.Fatalf("the client received %+v, want an envelope with %s", env, c.Code)
		}
		fail := map[string]string{ErrorType: "tool_error", GuardErrorType: string(c.Code)}
		spanWant, metricWant = merge(spanWant, fail), merge(metricWant, fail)
		if c.Code == envelope.InternalError {
			spanWant = merge(spanWant, map[string]string{GuardIncidentID: env.IncidentID})
		}
		check(t, "span status", span.Status(), sdktrace.Status{Code: codes.Error, Description: string(c.Code)})
	} else {
		check(t, "span status", span.Status().Code, codes.Unset)
	}
	if c.Result != "" {
		spanWant = merge(spanWant, map[string]string{Result: c.Result})
	}
	check(t, "span attributes", Values(span.Attributes()), spanWant)
	point := r.Point(t, c.Code != "")
	check(t, "metric attributes", Values(point.Attributes.ToSlice()), metricWant)
	check(t, "metric buckets", point.Bounds, Buckets)
	NoLeak(t, span, point)
}

// expected are the attributes of a successful call, on its span and on
// its metric point.
func expected(want Expect) (span, metric map[string]string) {
	metric = map[string]string{MethodName: "tools/call", ToolName: want.Tool, OperationName: "execute_tool"}
	if want.ProtocolVersion != "" {
		metric[ProtocolVersion] = want.ProtocolVersion
	}
	switch want.Transport {
	case "pipe":
		metric[Transport] = "pipe"
	case "tcp":
		metric[Transport], metric[ProtocolName] = "tcp", "http"
	}
	span = merge(metric, nil)
	if want.RequestID != "" {
		span[RequestID] = want.RequestID
	}
	if want.SessionID != "" {
		span[SessionID] = want.SessionID
	}
	return span, metric
}

func merge(a, b map[string]string) map[string]string {
	out := make(map[string]string, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// NoLeak asserts that neither Secret nor ArgumentValue, nor anything that
// looks like a stack, is anywhere in the span or the metric point.
func NoLeak(t testing.TB, span sdktrace.ReadOnlySpan, point metricdata.HistogramDataPoint[float64]) {
	t.Helper()
	dump := fmt.Sprintf("%s %v %v %v %v", span.Name(), span.Attributes(), span.Events(), span.Status(), point.Attributes.ToSlice())
	for _, leak := range []string{Secret, ArgumentValue, "goroutine ", ".go:", "panic("} {
		if strings.Contains(dump, leak) {
			t.Errorf("%q recorded: %s", leak, dump)
		}
	}
}

func check[T any](t testing.TB, what string, got, want T) {
	t.Helper()
	if !equal(got, want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}

func equal[T any](a, b T) bool { return fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b) }
