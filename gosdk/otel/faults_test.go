package otel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/codes"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpguard/mcpguard/core/otel/oteltest"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
	"github.com/mcpguard/mcpguard/gosdk/otel"
)

func okTool(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"}}}, nil
}

func TestTraceContextFromMeta(t *testing.T) {
	t.Parallel()
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
	)
	var seen trace.SpanContext
	r := newRig(t, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		seen = trace.SpanContextFromContext(ctx)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}, nil)
	r.call(map[string]any{"traceparent": "00-" + traceID + "-" + spanID + "-01", "tracestate": "vendor=value"})
	span := r.rec.Span(t)
	if span.SpanContext().TraceID().String() != traceID || span.Parent().SpanID().String() != spanID || !span.Parent().IsRemote() {
		t.Errorf("span %v with parent %v, want a child of the client's %s/%s", span.SpanContext(), span.Parent(), traceID, spanID)
	}
	if got := span.SpanContext().TraceState().String(); got != "vendor=value" {
		t.Errorf("tracestate %q", got)
	}
	if seen.SpanID() != span.SpanContext().SpanID() {
		t.Error("the handler does not run inside the call's span")
	}
	r.call(nil)
	if r.rec.Span(t).Parent().IsValid() {
		t.Error("no _meta: want a root span")
	}
}

// A client that calls tools the server does not have must not create a
// metric series per invented name.
func TestInventedToolNamesShareOneSeries(t *testing.T) {
	t.Parallel()
	r := newRig(t, okTool, nil)
	for i := range 50 {
		r.rec.Spans.Reset()
		res := r.s.Call(fmt.Sprintf("invented_%d_%s", i, oteltest.Secret), nil)
		if res.ProtocolError == nil {
			t.Fatalf("calling an unknown tool: %s, want go-sdk's JSON-RPC error", res.Raw)
		}
		span := r.rec.Span(t)
		if span.Name() != "tools/call" {
			t.Errorf("span name %q: an invented name must not name spans", span.Name())
		}
		if v := oteltest.Values(span.Attributes())[oteltest.ErrorType]; v != "-32602" {
			t.Errorf("error.type %q, want -32602", v)
		}
	}
	var points []metricdata.HistogramDataPoint[float64]
	for _, p := range r.rec.Points(t) {
		if m, _ := p.Attributes.Value(oteltest.MethodName); m.AsString() == "tools/call" {
			points = append(points, p)
		}
	}
	if len(points) != 1 {
		t.Fatalf("%d metric series for 50 invented tool names, want 1", len(points))
	}
	attrs := oteltest.Values(points[0].Attributes.ToSlice())
	if attrs[oteltest.ToolName] != otel.OtherTool || points[0].Count != 50 {
		t.Errorf("series %v with count %d, want gen_ai.tool.name=%s counted 50 times", attrs, points[0].Count, otel.OtherTool)
	}
}

func TestArgumentsAndResultsOnlyWhenOptedInAndRedacted(t *testing.T) {
	t.Parallel()
	args := map[string]any{"query": "shoes", "password": oteltest.Secret, "dsn": "postgres://app:s3cret@db/shop"}
	for _, opted := range []bool{false, true} {
		var opts []otel.Option
		if opted {
			opts = []otel.Option{otel.WithArguments(), otel.WithResults()}
		}
		r := newRig(t, okTool, opts)
		r.rec.Spans.Reset()
		r.s.Call(toolName, args).ExpectSuccess()
		attrs := oteltest.Values(r.rec.Span(t).Attributes())
		dump := fmt.Sprint(attrs)
		for _, secret := range []string{oteltest.Secret, "s3cret", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"} {
			if strings.Contains(dump, secret) {
				t.Errorf("opted=%v: %q recorded: %s", opted, secret, dump)
			}
		}
		_, hasArgs := attrs[oteltest.Arguments]
		if hasArgs != opted || (opted && (!strings.Contains(attrs[oteltest.Arguments], "shoes") || !strings.Contains(attrs[oteltest.Result], "token="))) {
			t.Errorf("opted=%v: attributes %v", opted, attrs)
		}
	}
}

// resourceRig serves one resource whose URI carries a token, traced with
// opts, through gosdk.Middleware.
func resourceRig(t *testing.T, opts ...otel.Option) (*oteltest.Recorder, *mcp.ClientSession) {
	t.Helper()
	rec := oteltest.NewRecorder()
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	opts = append([]otel.Option{otel.WithTracerProvider(rec.TracerProvider), otel.WithMeterProvider(rec.MeterProvider)}, opts...)
	s.AddReceivingMiddleware(otel.Middleware(opts...), gosdk.Middleware())
	s.AddTool(&mcp.Tool{Name: toolName, InputSchema: json.RawMessage(`{"type":"object"}`)}, okTool)
	s.AddResource(&mcp.Resource{URI: resourceURI, Name: "orders"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: resourceURI, Text: "[]"}}}, nil
	})
	return rec, gosdktest.Connect(t, s).ClientSession()
}

const resourceURI = "shop://orders?token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"

func TestResourceURIIsRedacted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []otel.Option
		want string // "" : absent
	}{
		{"default masks secret shapes", nil, "shop://orders?token="},
		{"a hook of one's own", []otel.Option{otel.WithURIRedactor(func(u string) string { return strings.SplitN(u, "?", 2)[0] })}, "shop://orders"},
		{"a hook that leaves it out", []otel.Option{otel.WithURIRedactor(func(string) string { return "" })}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec, cs := resourceRig(t, tc.opts...)
			rec.Spans.Reset()
			if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: resourceURI}); err != nil {
				t.Fatal(err)
			}
			span := rec.Span(t)
			uri, has := oteltest.Values(span.Attributes())[oteltest.ResourceURI]
			switch {
			case span.Name() != "resources/read":
				t.Errorf("span name %q", span.Name())
			case tc.want == "" && has, tc.want != "" && !strings.HasPrefix(uri, tc.want):
				t.Errorf("mcp.resource.uri %q (present %v), want %q", uri, has, tc.want)
			case strings.Contains(uri, "ghp_"):
				t.Errorf("the token is recorded: %q", uri)
			}
			point := rec.PointOf(t, "resources/read", false)
			if _, onMetric := point.Attributes.Value(oteltest.ResourceURI); onMetric {
				t.Error("a URI on the metric")
			}
		})
	}
}

func TestWithMethodsFilters(t *testing.T) {
	t.Parallel()
	rec, cs := resourceRig(t, otel.WithMethods("resources/read"))
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: toolName}); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Spans.GetSpans()); n != 0 {
		t.Errorf("%d spans for a method left out", n)
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: resourceURI}); err != nil {
		t.Fatal(err)
	}
	if got := rec.Span(t).Name(); got != "resources/read" {
		t.Errorf("span %q, want resources/read", got)
	}
	for _, bad := range [][]string{nil, {""}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("WithMethods(%q) did not panic", bad)
				}
			}()
			otel.WithMethods(bad...)
		}()
	}
}

// Without gosdk.Middleware inside, a panic goes on past the layer (go-sdk
// would end the process); the span still ends, without the panic value.
func TestPanicWithoutTheChainStillEndsTheSpan(t *testing.T) {
	t.Parallel()
	rec := oteltest.NewRecorder()
	mw := otel.Middleware(otel.WithTracerProvider(rec.TracerProvider), otel.WithMeterProvider(rec.MeterProvider))
	h := mw(func(context.Context, string, mcp.Request) (mcp.Result, error) { panic("dial " + oteltest.Secret) })
	func() {
		defer func() {
			if v := recover(); v != "dial "+oteltest.Secret {
				t.Errorf("recovered %v, want the panic to go on unchanged", v)
			}
		}()
		_, _ = h(context.Background(), "tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: toolName}})
	}()
	span := rec.Span(t)
	if span.Status().Code != codes.Error || oteltest.Values(span.Attributes())[oteltest.ErrorType] != "panic" {
		t.Errorf("status %v, attributes %v", span.Status(), span.Attributes())
	}
	oteltest.NoLeak(t, span, rec.Point(t, true))
}

func TestNoProviderInstallsNothing(t *testing.T) {
	t.Parallel()
	h := mcp.MethodHandler(func(context.Context, string, mcp.Request) (mcp.Result, error) { return nil, nil })
	mw := otel.Middleware(otel.WithTracerProvider(tracenoop.NewTracerProvider()), otel.WithMeterProvider(metricnoop.NewMeterProvider()))
	if reflect.ValueOf(mw(h)).Pointer() != reflect.ValueOf(h).Pointer() {
		t.Error("no-op providers: want the handler itself, not a wrapper")
	}
	mw = otel.Middleware(otel.WithTracerProvider(tracenoop.NewTracerProvider()))
	if reflect.ValueOf(mw(h)).Pointer() == reflect.ValueOf(h).Pointer() {
		t.Error("metrics still on: want a wrapper")
	}
}

// A name no tool can have (over the specification's 128 characters) is
// never recorded, on the span or the metric.
func TestOverlongToolNameIsNotRecorded(t *testing.T) {
	t.Parallel()
	r := newRig(t, okTool, nil)
	r.rec.Spans.Reset()
	r.s.Call(strings.Repeat("x", 1<<20), nil)
	span := r.rec.Span(t)
	if got := oteltest.Values(span.Attributes())[oteltest.ToolName]; got != otel.OtherTool || span.Name() != "tools/call" {
		t.Errorf("span %q with gen_ai.tool.name of %d bytes, want %s", span.Name(), len(got), otel.OtherTool)
	}
}

func TestPromptSpan(t *testing.T) {
	t.Parallel()
	rec := oteltest.NewRecorder()
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	s.AddReceivingMiddleware(otel.Middleware(otel.WithTracerProvider(rec.TracerProvider), otel.WithMeterProvider(rec.MeterProvider)), gosdk.Middleware())
	s.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}}, nil
	})
	cs := gosdktest.Connect(t, s).ClientSession()
	rec.Spans.Reset()
	if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": oteltest.ArgumentValue}}); err != nil {
		t.Fatal(err)
	}
	span := rec.Span(t)
	attrs := oteltest.Values(span.Attributes())
	if span.Name() != "prompts/get greet" || attrs["gen_ai.prompt.name"] != "greet" || attrs[oteltest.MethodName] != "prompts/get" {
		t.Errorf("span %q with %v", span.Name(), attrs)
	}
	point := rec.PointOf(t, "prompts/get", false)
	if _, ok := point.Attributes.Value("gen_ai.prompt.name"); ok {
		t.Error("a prompt name on the metric")
	}
	oteltest.NoLeak(t, span, point)
}
