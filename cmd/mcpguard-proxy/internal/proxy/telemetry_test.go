package proxy_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpguard/mcpguard/core/envelope"
	coreotel "github.com/mcpguard/mcpguard/core/otel"
	"github.com/mcpguard/mcpguard/core/otel/oteltest"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// rig is a Recorder whose tracer provider also counts the spans started
// and ended, so that a test can tell that none leaked.
type rig struct {
	*oteltest.Recorder
	count *counter
}

type counter struct{ started, ended atomic.Int64 }

func (c *counter) OnStart(context.Context, sdktrace.ReadWriteSpan) { c.started.Add(1) }
func (c *counter) OnEnd(sdktrace.ReadOnlySpan)                     { c.ended.Add(1) }
func (c *counter) Shutdown(context.Context) error                  { return nil }
func (c *counter) ForceFlush(context.Context) error                { return nil }

func newRig() *rig {
	r := &rig{Recorder: &oteltest.Recorder{Spans: tracetest.NewInMemoryExporter(), Reader: sdkmetric.NewManualReader()},
		count: &counter{}}
	r.TracerProvider = sdktrace.NewTracerProvider(sdktrace.WithSyncer(r.Spans), sdktrace.WithSpanProcessor(r.count))
	r.MeterProvider = sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.Reader))
	return r
}

func (r *rig) option() proxy.Option {
	return proxy.WithTelemetry(coreotel.WithTracerProvider(r.TracerProvider), coreotel.WithMeterProvider(r.MeterProvider))
}

// balanced fails unless every span started has ended.
func (r *rig) balanced(t *testing.T) {
	t.Helper()
	if s, e := r.count.started.Load(), r.count.ended.Load(); s != e || s == 0 {
		t.Errorf("%d spans started, %d ended: want as many, and some", s, e)
	}
}

// traced starts a stdio proxy recording into a new rig, with the tools
// listed (so that their names are on the metric).
func traced(t *testing.T, opts ...proxy.Option) (*session, *rig) {
	t.Helper()
	r := newRig()
	s := start(t, append([]proxy.Option{r.option()}, opts...)...)
	s.request("tools/list", `{}`)
	t.Cleanup(func() { r.balanced(t) }) // after the session closed (cleanups run last first)
	r.Spans.Reset()
	return s, r
}

// parsed is the envelope the client received, for CheckCall.
func parsed(t *testing.T, resp map[string]any) *envelope.Envelope {
	t.Helper()
	envelopeOf(t, resp)
	env, ok := envelope.Parse(textOf(t, resp))
	if !ok {
		t.Fatalf("not an envelope: %v", resp)
	}
	return env
}

func stdioExpect(tool string, id int) oteltest.Expect {
	return oteltest.Expect{Tool: tool, RequestID: fmt.Sprint(id), ProtocolVersion: "2025-06-18", Transport: "pipe"}
}

// args carries the argument value no attribute may hold.
var args = fmt.Sprintf(`{"text":%q}`, oteltest.ArgumentValue+" "+oteltest.Secret)

func TestTelemetrySuccessOverStdio(t *testing.T) {
	s, r := traced(t)
	s.call("echo", args)
	oteltest.CheckCall(t, r.Recorder, oteltest.Case{Name: "success"}, nil, stdioExpect("echo", s.next))
}

// Each envelope the client receives is what the span says: the upstream's
// isError text, the upstream's own envelope, and the proxy's refusals.
func TestTelemetryEnvelopesOverStdio(t *testing.T) {
	for _, tc := range []struct {
		name, tool, args string
		opts             []proxy.Option
		calls            int
		want             envelope.Code
	}{
		{"tool error passed through", "fail_text", args, nil, 1, ""}, // classified from its text
		{"the upstream's own envelope", "own_envelope", args, nil, 1, envelope.NotFound},
		{"declared-schema refusal", "echo", `{"text":"` + oteltest.ArgumentValue + `","times":-3}`, nil, 1, envelope.ValidationError},
		{"rate refusal", "echo", args, []proxy.Option{proxy.WithRate(0.001, 1)}, 2, envelope.ExecutionFailed},
		{"timeout", "hang", args, []proxy.Option{proxy.WithTimeout(50 * time.Millisecond)}, 1, envelope.ExecutionFailed},
		{"JSON-RPC error become an envelope", "fail_rpc", args, nil, 1, envelope.ExecutionFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, r := traced(t, tc.opts...)
			var resp map[string]any
			for range tc.calls {
				r.Spans.Reset()
				resp = s.call(tc.tool, tc.args)
			}
			env := parsed(t, resp)
			if tc.want != "" && env.ErrorType != tc.want {
				t.Fatalf("the client received %s, want %s", env.ErrorType, tc.want)
			}
			c := oteltest.Case{Name: tc.name, Code: env.ErrorType}
			oteltest.CheckCall(t, r.Recorder, c, env, stdioExpect(tc.tool, s.next))
		})
	}
}

// A child that dies mid-call: the call's internal_error, with the incident
// ID the log has, is on its span.
func TestTelemetryChildCrash(t *testing.T) {
	s, r := traced(t)
	env := parsed(t, s.call("crash", args))
	if env.ErrorType != envelope.InternalError || env.IncidentID == "" {
		t.Fatalf("the client received %+v, want an internal_error with an incident", env)
	}
	oteltest.CheckCall(t, r.Recorder, oteltest.Case{Name: "crash", Code: envelope.InternalError}, env, stdioExpect("crash", s.next))
	if !strings.Contains(s.logs.String(), env.IncidentID) {
		t.Errorf("the incident %s is not in the log", env.IncidentID)
	}
}

// An unknown tool stays a JSON-RPC error: error.type and the status code
// are its code, and the metric names the tool _OTHER, as it does a tool the
// upstream has not listed yet.
func TestTelemetryUnknownToolIsOtherOnTheMetric(t *testing.T) {
	s, r := traced(t)
	resp := s.call("invented_"+oteltest.ArgumentValue, `{}`)
	if e, ok := resp["error"].(map[string]any); !ok || e["code"] != float64(-32602) {
		t.Fatalf("unknown tool: %v", resp)
	}
	span := r.Span(t)
	attrs := oteltest.Values(span.Attributes())
	if span.Name() != "tools/call" || attrs[oteltest.ErrorType] != "-32602" || attrs[oteltest.RPCStatusCode] != "-32602" {
		t.Errorf("span %q %v", span.Name(), attrs)
	}
	if span.Status().Code != codes.Error {
		t.Errorf("span status %v", span.Status())
	}
	point := r.PointOf(t, "tools/call", true)
	if tool, _ := point.Attributes.Value(oteltest.ToolName); tool.AsString() != coreotel.OtherTool {
		t.Errorf("gen_ai.tool.name on the metric is %q, want %s", tool.AsString(), coreotel.OtherTool)
	}

	// Before a client's tools/list, the proxy listed the tools itself: a
	// listed tool is named from the first call.
	r2 := newRig()
	s2 := start(t, r2.option())
	t.Cleanup(func() { r2.balanced(t) })
	s2.call("echo", `{"text":"hi"}`)
	point = r2.PointOf(t, "tools/call", false)
	if tool, _ := point.Attributes.Value(oteltest.ToolName); tool.AsString() != "echo" {
		t.Errorf("before a client's tools/list, gen_ai.tool.name on the metric is %q, want echo", tool.AsString())
	}
}

// A JSON-RPC error on a method the proxy passes through (here prompts/get)
// is error.type and rpc.response.status_code, and the prompt names the span.
func TestTelemetryJSONRPCErrorPassedThrough(t *testing.T) {
	s, r := traced(t)
	resp := s.request("prompts/get", `{"name":"greet","arguments":{"who":"`+oteltest.ArgumentValue+`"}}`)
	if _, ok := resp["error"]; !ok {
		t.Fatalf("want the child's error, got %v", resp)
	}
	span := r.Span(t)
	attrs := oteltest.Values(span.Attributes())
	want := map[string]string{oteltest.MethodName: "prompts/get", "gen_ai.prompt.name": "greet", oteltest.ErrorType: "-32602",
		oteltest.RPCStatusCode: "-32602", oteltest.RequestID: fmt.Sprint(s.next), oteltest.ProtocolVersion: "2025-06-18",
		oteltest.Transport: "pipe"}
	if span.Name() != "prompts/get greet" || fmt.Sprint(attrs) != fmt.Sprint(want) {
		t.Errorf("span %q\n got %v\nwant %v", span.Name(), attrs, want)
	}
	oteltest.NoLeak(t, span, r.PointOf(t, "prompts/get", true))
}

// A JSON-RPC error with code 0, go-sdk's answer to a plain Go error, is
// an internal error on the span, as the go-sdk front records that same
// error (core/otel: one reading of an answer for every consumer).
func TestTelemetryErrorWithoutACode(t *testing.T) {
	s, r := traced(t)
	resp := s.request("prompts/get", `{"name":"no_code"}`)
	if e, ok := resp["error"].(map[string]any); !ok || e["code"] != float64(0) {
		t.Fatalf("want the child's error with code 0, got %v", resp)
	}
	attrs := oteltest.Values(r.Span(t).Attributes())
	if attrs[oteltest.ErrorType] != "-32603" || attrs[oteltest.RPCStatusCode] != "-32603" {
		t.Errorf("error.type %q, rpc.response.status_code %q: want -32603", attrs[oteltest.ErrorType], attrs[oteltest.RPCStatusCode])
	}
}

// With results recorded, a success's text items are joined with a line
// break and a failure's text is never recorded, as on both fronts
// (core/otel/oteltest's "results recorded" cases).
func TestTelemetryResultsOfSuccessesOnly(t *testing.T) {
	r := newRig()
	s := start(t, proxy.WithTelemetry(coreotel.WithTracerProvider(r.TracerProvider), coreotel.WithMeterProvider(r.MeterProvider),
		coreotel.WithResults()))
	t.Cleanup(func() { r.balanced(t) })
	s.request("tools/list", `{}`)
	r.Spans.Reset()
	s.call("texts", `{}`)
	if got := oteltest.Values(r.Span(t).Attributes())[oteltest.Result]; got != strings.Join(oteltest.TextItems, "\n") {
		t.Errorf("result %q, want the text items joined with a line break", got)
	}
	r.Spans.Reset()
	s.call("fail_text", args)
	if v, ok := oteltest.Values(r.Span(t).Attributes())[oteltest.Result]; ok {
		t.Errorf("a failure's text recorded: %q", v)
	}
}

// A call the client cancels gets no answer; its span ends all the same,
// with error.type cancelled.
func TestTelemetryCancelledCall(t *testing.T) {
	s, r := traced(t)
	s.next++
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hang","arguments":{}}}`, s.next))
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, s.next))
	span := waitSpan(t, r)
	if got := oteltest.Values(span.Attributes())[oteltest.ErrorType]; got != "cancelled" || span.Status().Code != codes.Error {
		t.Errorf("error.type %q, status %v; want cancelled, Error", got, span.Status())
	}
	s.request("ping", `{}`) // the session goes on
}

// waitSpan waits for the one span a call with no answer ends.
func waitSpan(t *testing.T, r *rig) sdktrace.ReadOnlySpan {
	t.Helper()
	for range 500 {
		if len(r.Spans.GetSpans()) > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return r.Span(t)
}

// A traceparent in params._meta makes the client's span the parent.
func TestTelemetryTraceContextFromMeta(t *testing.T) {
	s, r := traced(t)
	const traceID, spanID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	s.request("tools/call", `{"name":"echo","arguments":{"text":"hi"},"_meta":{"traceparent":"00-`+traceID+`-`+spanID+`-01"}}`)
	span := r.Span(t)
	if p := span.Parent(); p.TraceID().String() != traceID || p.SpanID().String() != spanID || !p.IsRemote() {
		t.Errorf("parent %v, want the client's span %s/%s", p, traceID, spanID)
	}
	if span.SpanContext().TraceID().String() != traceID {
		t.Errorf("trace %s, want %s", span.SpanContext().TraceID(), traceID)
	}
}

// resources/read: the URI is on the span through core/otel's redactor, and
// not on the metric.
func TestTelemetryResourceURIRedacted(t *testing.T) {
	s, r := traced(t)
	s.request("resources/read", `{"uri":"shop://orders?token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"}`)
	span := r.Span(t)
	uri := oteltest.Values(span.Attributes())[oteltest.ResourceURI]
	if span.Name() != "resources/read" || !strings.HasPrefix(uri, "shop://orders?token=") || strings.Contains(uri, "ghp_") {
		t.Errorf("span %q, mcp.resource.uri %q: want it with the token masked", span.Name(), uri)
	}
	point := r.PointOf(t, "resources/read", false)
	if _, on := point.Attributes.Value(oteltest.ResourceURI); on {
		t.Error("a URI on the metric")
	}
}

// Every request is traced, whatever answers it, and no attribute anywhere
// holds an argument value, a secret from an error, or a stack.
func TestTelemetryFaultsLeakNothing(t *testing.T) {
	s, r := traced(t, proxy.WithTimeout(100*time.Millisecond), proxy.WithMaxMessage(1<<20))
	for _, tool := range []string{"echo", "fail_text", "fail_rpc", "bad_args", "own_envelope", "secret_ok", "stray", "hang", "big", "no_such_tool", "crash"} {
		s.call(tool, args)
	}
	s.send(`{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"hang","arguments":` + args + `}}`)
	s.send(`{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"hang","arguments":` + args + `}}`)
	s.await("dup")
	s.await("dup")
	s.send(`{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 2<<20) + `"}}}`)
	s.await("huge")
	s.send(`not json ` + oteltest.Secret)
	s.read()
	s.request("ping", `{}`)
	dump := fmt.Sprint(r.Spans.GetSpans().Snapshots())
	for _, p := range r.Points(t) {
		dump += fmt.Sprint(p.Attributes.ToSlice())
	}
	for _, leak := range []string{oteltest.Secret, oteltest.ArgumentValue, "hunter2", "ghp_", "/home/alice", "goroutine ", ".go:"} {
		if strings.Contains(dump, leak) {
			t.Errorf("%q recorded", leak)
		}
	}
	if n := len(r.Spans.GetSpans()); n != 11+2+1+1 {
		t.Errorf("%d spans, want one per request (15)", n)
	}
}

// Over HTTP the span has the session and tcp, and each outcome its own.
func TestTelemetryOverHTTP(t *testing.T) {
	up := upstream(t)
	for i, tc := range []struct {
		tool string
		want envelope.Code // "": a success
	}{{"echo", ""}, {"fail_text", ""}, {"hang", envelope.ExecutionFailed}, {"big", envelope.ExecutionFailed}, {"drop", envelope.InternalError}} {
		t.Run(tc.tool, func(t *testing.T) {
			r := newRig()
			url := proxyFor(t, up.URL+"/mcp", r.option(), proxy.WithMaxMessage(1<<20), proxy.WithTimeout(200*time.Millisecond))
			postAs(t, url, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			r.Spans.Reset()
			resp := lastData(t, postAs(t, url, callBody(10+i, tc.tool, args)))
			var env *envelope.Envelope
			c := oteltest.Case{Name: tc.tool}
			if res, _ := resp["result"].(map[string]any); res["isError"] == true {
				env = parsed(t, resp)
				c.Code = env.ErrorType
			}
			if tc.want != "" && c.Code != tc.want {
				t.Fatalf("the client received %v, want %s", resp, tc.want)
			}
			oteltest.CheckCall(t, r.Recorder, c, env, oteltest.Expect{Tool: tc.tool, RequestID: fmt.Sprint(10 + i),
				ProtocolVersion: "2025-06-18", SessionID: "s-1", Transport: "tcp"})
			r.balanced(t)
		})
	}
}

// postAs posts body as a client of session s-1 at protocol 2025-06-18.
func postAs(t *testing.T, url, body string) string {
	t.Helper()
	_, b := post(t, url, body, "Mcp-Session-Id", "s-1", "Mcp-Protocol-Version", "2025-06-18")
	return b
}

// Over HTTP, a client that goes away before the answer ends its call's
// span as cancelled; an upstream that answers with a status and no
// JSON-RPC message (a lost session, say) ends it with that status; a
// protocol version header not shaped like one is on neither span nor
// metric.
func TestTelemetryHTTPCancelledAndStatus(t *testing.T) {
	up := upstream(t)
	r := newRig()
	url := proxyFor(t, up.URL+"/mcp", r.option())
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(callBody(1, "hang", args)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	span := waitSpan(t, r)
	if got := oteltest.Values(span.Attributes())[oteltest.ErrorType]; got != "cancelled" {
		t.Errorf("error.type %q, want cancelled", got)
	}
	r.balanced(t)

	gone := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "session not found", http.StatusNotFound)
	}))
	t.Cleanup(gone.Close)
	r = newRig()
	url = proxyFor(t, gone.URL+"/mcp", r.option())
	req, _ = http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	req.Header.Set("Mcp-Protocol-Version", oteltest.Secret)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	span = waitSpan(t, r)
	attrs := oteltest.Values(span.Attributes())
	if attrs[oteltest.ErrorType] != "404" || span.Status().Code != codes.Error {
		t.Errorf("error.type %q, status %v: want 404, Error", attrs[oteltest.ErrorType], span.Status())
	}
	point := r.PointOf(t, "ping", true)
	if v, _ := point.Attributes.Value(oteltest.ProtocolVersion); v.AsString() != "_OTHER" || attrs[oteltest.ProtocolVersion] != "_OTHER" {
		t.Errorf("an invented protocol version was recorded: %v", attrs)
	}
	oteltest.NoLeak(t, span, point)
	r.balanced(t)
}

// A method outside the specification passes through untraced: its name,
// which a client chooses, would be a new series on the metric.
func TestTelemetryInventedMethodIsNotTraced(t *testing.T) {
	up := upstream(t)
	r := newRig()
	url := proxyFor(t, up.URL+"/mcp", r.option())
	if _, body := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"x/`+oteltest.ArgumentValue+`"}`); !strings.Contains(body, `"result"`) {
		t.Fatalf("the upstream's answer did not pass through: %s", body)
	}
	post(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	spans := r.Spans.GetSpans()
	if len(spans) != 1 || spans[0].Name != "ping" {
		t.Errorf("spans %v, want ping's only", spans)
	}
	for _, p := range r.Points(t) {
		if m, _ := p.Attributes.Value(oteltest.MethodName); m.AsString() != "ping" {
			t.Errorf("a metric series for %q", m.AsString())
		}
	}
}
