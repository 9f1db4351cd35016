package otel_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/core/otel/oteltest"
	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/otel"
)

// The conventions' names, as both fronts' tests check them (written out in
// oteltest, independently of the package's constants).
const (
	convMethodName      = oteltest.MethodName
	convToolName        = oteltest.ToolName
	convRequestID       = oteltest.RequestID
	convProtocolVersion = oteltest.ProtocolVersion
	convSessionID       = oteltest.SessionID
	convTransport       = oteltest.Transport
	convErrorType       = oteltest.ErrorType
	convArguments       = oteltest.Arguments
	guardErrorType      = oteltest.GuardErrorType
	guardIncidentID     = oteltest.GuardIncidentID
	convMetric          = oteltest.Metric
)

const (
	toolName        = "shop_tool"
	sessionID       = "mcp-session-7"
	protocolVersion = "2025-11-25"
)

// pipeSession is a session without HTTP headers that is not in-process,
// the way a stdio session looks to a handler.
type pipeSession struct {
	notes   chan mcp.JSONRPCNotification
	version string // "" for protocolVersion
}

func (s *pipeSession) Initialize()                                         {}
func (s *pipeSession) Initialized() bool                                   { return true }
func (s *pipeSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.notes }
func (s *pipeSession) SessionID() string                                   { return sessionID }
func (s *pipeSession) ProtocolVersion() string {
	if s.version != "" {
		return s.version
	}
	return protocolVersion
}

// rig is a real server with otel.Middleware outermost, then Default, then
// extra layers, recording into the real OpenTelemetry SDK.
type rig struct {
	s      *server.MCPServer
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
}

func newRig(t *testing.T, h server.ToolHandlerFunc, extra ...server.ToolHandlerMiddleware) *rig {
	t.Helper()
	return newRigOn(t, oteltest.NewRecorder(), h, extra...)
}

func newRigOn(t *testing.T, rec *oteltest.Recorder, h server.ToolHandlerFunc, extra ...server.ToolHandlerMiddleware) *rig {
	t.Helper()
	return newRigWith(t, rec, nil, h, extra...)
}

// newRigWith is newRigOn with otel options.
func newRigWith(t *testing.T, rec *oteltest.Recorder, opts []otel.Option, h server.ToolHandlerFunc, extra ...server.ToolHandlerMiddleware) *rig {
	t.Helper()
	r := &rig{spans: rec.Spans, reader: rec.Reader}
	tp, mp := rec.TracerProvider, rec.MeterProvider
	hooks := &server.Hooks{}
	r.s = server.NewMCPServer("t", "0", server.WithHooks(hooks))
	r.s.Use(otel.Middleware(append([]otel.Option{otel.WithTracerProvider(tp), otel.WithMeterProvider(mp), otel.WithHooks(hooks)}, opts...)...))
	r.s.Use(middleware.Default(middleware.WithLimits(extra...))...)
	r.s.AddTool(mcp.NewTool(toolName), h)
	return r
}

// call sends a tools/call through HandleMessage in a pipe session and
// returns the JSON a client receives.
func (r *rig) call(t *testing.T, id int, meta map[string]any) string {
	t.Helper()
	params := map[string]any{"name": toolName, "arguments": map[string]any{"q": oteltest.ArgumentValue}}
	if meta != nil {
		params["_meta"] = meta
	}
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	ctx := r.s.WithContext(context.Background(), &pipeSession{notes: make(chan mcp.JSONRPCNotification, 8)})
	raw, err := json.Marshal(r.s.HandleMessage(ctx, msg))
	require.NoError(t, err)
	require.NotContains(t, string(raw), `"error":{`, "a tool failure must never be a JSON-RPC error")
	return string(raw)
}

func (r *rig) span(t *testing.T) sdktrace.ReadOnlySpan {
	t.Helper()
	spans := r.spans.GetSpans().Snapshots()
	require.Len(t, spans, 1, "one span per call")
	return spans[0]
}

// point returns the one data point of the call's outcome: failed or not.
func (r *rig) point(t *testing.T, failed bool) (metricdata.Histogram[float64], metricdata.HistogramDataPoint[float64]) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.reader.Collect(context.Background(), &rm))
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == convMetric {
				assert.Equal(t, "s", m.Unit)
				h, ok := m.Data.(metricdata.Histogram[float64])
				require.True(t, ok, "%s is a float64 histogram", convMetric)
				for _, p := range h.DataPoints {
					if _, ok := p.Attributes.Value(convErrorType); ok == failed {
						return h, p
					}
				}
			}
		}
	}
	t.Fatalf("no %s recorded", convMetric)
	return metricdata.Histogram[float64]{}, metricdata.HistogramDataPoint[float64]{}
}

func keys(kvs []attribute.KeyValue) []string {
	out := make([]string, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, string(kv.Key))
	}
	slices.Sort(out)
	return out
}

func values(kvs []attribute.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		out[string(kv.Key)] = kv.Value.String()
	}
	return out
}

func failing(err error) server.ToolHandlerFunc {
	return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, err }
}

// TestSpanAndMetricPerOutcome runs the table both fronts share
// (core/otel/oteltest): the same span and metric point for each outcome as
// the go-sdk front records.
func TestSpanAndMetricPerOutcome(t *testing.T) {
	t.Parallel()
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	for _, c := range oteltest.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			h, extra := server.ToolHandlerFunc(ok), []server.ToolHandlerMiddleware(nil)
			switch c.Kind {
			case oteltest.Fail:
				h = failing(c.Err)
			case oteltest.Panic:
				h = func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					panic("dial postgres://app:" + oteltest.Secret + "@db/shop")
				}
			case oteltest.Hang:
				h = func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					<-ctx.Done()
					return nil, ctx.Err()
				}
				extra = append(extra, limit.Timeout(time.Millisecond))
			case oteltest.RateLimited:
				extra = append(extra, limit.Rate(rate.Every(time.Hour), 1))
			case oteltest.Texts:
				h = func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(oteltest.TextItems[0]),
						mcp.NewImageContent(oteltest.ImageData, "image/png"), mcp.NewTextContent(oteltest.TextItems[1])}}, nil
				}
			}
			var opts []otel.Option
			if c.Results {
				opts = append(opts, otel.WithResults())
			}
			rec := oteltest.NewRecorder()
			r := newRigWith(t, rec, opts, h, extra...)
			var raw string
			for i := range c.Calls() {
				r.spans.Reset()
				raw = r.call(t, 41+i, nil)
			}
			var env *envelope.Envelope
			if c.Code != "" {
				env = decodeEnvelope(t, raw)
			}
			oteltest.CheckCall(t, rec, c, env, oteltest.Expect{
				Tool:            toolName,
				RequestID:       fmt.Sprint(40 + c.Calls()),
				ProtocolVersion: protocolVersion,
				SessionID:       sessionID,
				Transport:       "pipe",
			})
		})
	}
}

// TestBareOutcomes runs the table of what mcp-go itself answers, without
// the chain (core/otel/oteltest's BareCases): the span says what the
// client received, for a protocol version before MCP 2026-07-28 (which
// answers a URL elicitation with -32042) and one from it (which answers
// it as any other error, -32603).
func TestBareOutcomes(t *testing.T) {
	t.Parallel()
	for _, version := range []string{protocolVersion, mcp.ProtocolVersion20260728} {
		for _, c := range oteltest.BareCases() {
			t.Run(version+" "+c.Name, func(t *testing.T) {
				t.Parallel()
				var h server.ToolHandlerFunc
				switch c.Kind {
				case oteltest.Fail:
					h = failing(c.Err)
				case oteltest.Coded:
					h = failing(mcp.URLElicitationRequiredError{Elicitations: []mcp.ElicitationParams{{Mode: "url", URL: "https://example.com/auth"}}})
				case oteltest.ForeignEnvelope:
					h = func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						foreign, _ := envelope.Parse(oteltest.ForeignStructured)
						return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent(oteltest.ForeignText)},
							StructuredContent: foreign}, nil
					}
				}
				rec := oteltest.NewRecorder()
				s := server.NewMCPServer("t", "0")
				s.Use(otel.Middleware(otel.WithTracerProvider(rec.TracerProvider), otel.WithMeterProvider(rec.MeterProvider)))
				s.AddTool(mcp.NewTool(toolName), h)
				msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + toolName + `"}}`
				ctx := s.WithContext(context.Background(), &pipeSession{notes: make(chan mcp.JSONRPCNotification, 8), version: version})
				raw, err := json.Marshal(s.HandleMessage(ctx, json.RawMessage(msg)))
				require.NoError(t, err)
				var resp struct {
					Error struct {
						Code int `json:"code"`
					} `json:"error"`
				}
				require.NoError(t, json.Unmarshal(raw, &resp))
				oteltest.CheckBare(t, rec, c, resp.Error.Code)
			})
		}
	}
}

func decodeEnvelope(t *testing.T, raw string) *envelope.Envelope {
	t.Helper()
	var resp struct {
		Result mcp.CallToolResult `json:"result"`
	}
	var wire struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	_ = resp
	require.NoError(t, json.Unmarshal([]byte(raw), &wire))
	require.True(t, wire.Result.IsError, raw)
	require.NotEmpty(t, wire.Result.Content)
	env, ok := envelope.Parse(wire.Result.Content[0].Text)
	require.True(t, ok, raw)
	return env
}

func TestHistogramUsesTheConventionsBuckets(t *testing.T) {
	t.Parallel()
	r := newRig(t, failing(envelope.ErrNotFound))
	r.call(t, 1, nil)
	_, point := r.point(t, true)
	assert.Equal(t, oteltest.Buckets, point.Bounds)
	assert.EqualValues(t, 1, point.Count)
}

func TestPanicIsOneErrorSpanWithTheIncidentAndNoStack(t *testing.T) {
	t.Parallel()
	const secret = "postgres://app:hunter2@db:5432/shop"
	r := newRig(t, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("dial " + secret)
	})
	raw := r.call(t, 1, nil)
	env := decodeEnvelope(t, raw)
	span := r.span(t)
	assert.Equal(t, codes.Error, span.Status().Code)
	assert.Equal(t, env.IncidentID, values(span.Attributes())[guardIncidentID])
	dump := fmt.Sprintf("%v %v %v", span.Attributes(), span.Events(), span.Status())
	for _, leak := range []string{"hunter2", "goroutine ", ".go:", "panic("} {
		assert.NotContains(t, dump, leak)
	}
}

func TestTraceContextFromMeta(t *testing.T) {
	t.Parallel()
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
	)
	var seen trace.SpanContext
	r := newRig(t, func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		seen = trace.SpanContextFromContext(ctx)
		return mcp.NewToolResultText("ok"), nil
	})
	r.call(t, 1, map[string]any{
		"traceparent": "00-" + traceID + "-" + spanID + "-01",
		"tracestate":  "vendor=value",
		"baggage":     "tenant=acme",
	})
	span := r.span(t)
	assert.Equal(t, traceID, span.SpanContext().TraceID().String())
	assert.Equal(t, spanID, span.Parent().SpanID().String())
	assert.True(t, span.Parent().IsRemote())
	assert.Equal(t, "vendor=value", span.SpanContext().TraceState().String())
	assert.Equal(t, traceID, seen.TraceID().String(), "the handler runs inside the client's trace")
	assert.Equal(t, span.SpanContext().SpanID(), seen.SpanID())

	r = newRig(t, failing(envelope.ErrNotFound))
	r.call(t, 1, nil)
	assert.False(t, r.span(t).Parent().IsValid(), "no _meta: a root span")
}

func TestArgumentsOnlyWhenOptedInAndRedacted(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"), nil
	}
	args := map[string]any{"query": "shoes", "password": "hunter2", "dsn": "postgres://app:s3cret@db/shop"}
	for _, opted := range []bool{false, true} {
		spans.Reset()
		opts := []otel.Option{otel.WithTracerProvider(tp)}
		if opted {
			opts = append(opts, otel.WithArguments(), otel.WithResults())
		}
		srv := middlewaretest.New(t, mcp.NewTool(toolName), h, otel.Middleware(opts...))
		srv.Call(args).ExpectSuccess()
		got := spans.GetSpans().Snapshots()
		require.Len(t, got, 1)
		attrs := values(got[0].Attributes())
		dump := fmt.Sprint(got[0].Attributes())
		for _, secret := range []string{"hunter2", "s3cret", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"} {
			assert.NotContains(t, dump, secret)
		}
		if !opted {
			assert.NotContains(t, slices.Collect(maps.Keys(attrs)), convArguments)
			continue
		}
		assert.Contains(t, attrs[convArguments], "shoes")
		assert.Contains(t, attrs["gen_ai.tool.call.result"], "token=")
	}
}

func TestWithoutSessionOrHooksTheUnknownIsLeftOut(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	srv := middlewaretest.New(t, mcp.NewTool(toolName), failing(envelope.ErrNotFound),
		append([]server.ToolHandlerMiddleware{otel.Middleware(otel.WithTracerProvider(tp))}, middleware.Default()...)...).WithoutSession()
	spans.Reset()
	srv.Call(nil).ExpectError(envelope.NotFound)
	got := spans.GetSpans().Snapshots()
	require.Len(t, got, 1)
	k := keys(got[0].Attributes())
	for _, absent := range []string{convRequestID, convSessionID, convTransport} {
		assert.NotContains(t, k, absent)
	}
	assert.True(t, strings.HasPrefix(got[0].Name(), "tools/call "))
}

func TestWithoutTheChainFailuresStillEndTheSpan(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Run("a Go error is a JSON-RPC error", func(t *testing.T) {
		srv := middlewaretest.New(t, mcp.NewTool(toolName), failing(errors.New("boom")), otel.Middleware(otel.WithTracerProvider(tp)))
		srv.Call(nil).ExpectProtocolError(mcp.INTERNAL_ERROR)
		got := spans.GetSpans().Snapshots()
		require.Len(t, got, 1)
		attrs := values(got[0].Attributes())
		assert.Equal(t, "-32603", attrs[convErrorType])
		assert.Equal(t, "-32603", attrs["rpc.response.status_code"])
		assert.Equal(t, codes.Error, got[0].Status().Code)
	})
	t.Run("a panic goes on, after the span ends", func(t *testing.T) {
		spans.Reset()
		s := server.NewMCPServer("t", "0")
		s.Use(otel.Middleware(otel.WithTracerProvider(tp)))
		s.AddTool(mcp.NewTool(toolName), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("boom") })
		msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + toolName + `"}}`
		assert.PanicsWithValue(t, "boom", func() { s.HandleMessage(context.Background(), json.RawMessage(msg)) })
		got := spans.GetSpans().Snapshots()
		require.Len(t, got, 1)
		assert.Equal(t, "panic", values(got[0].Attributes())[convErrorType])
		assert.Empty(t, got[0].Events())
	})
}

func TestNoopProvidersInstallNothing(t *testing.T) {
	t.Parallel()
	h := failing(errors.New("x"))
	mw := otel.Middleware(otel.WithTracerProvider(tracenoop.NewTracerProvider()), otel.WithMeterProvider(metricnoop.NewMeterProvider()))
	assert.Equal(t, reflect.ValueOf(h).Pointer(), reflect.ValueOf(mw(h)).Pointer(), "the handler itself, not a wrapper")
	mw = otel.Middleware(otel.WithTracerProvider(tracenoop.NewTracerProvider()))
	assert.NotEqual(t, reflect.ValueOf(h).Pointer(), reflect.ValueOf(mw(h)).Pointer(), "metrics still on: wrapped")
}

// bareSession is a stdio-like session that, like mcp-go's stdio session,
// does not remember the negotiated protocol version.
type bareSession struct{ notes chan mcp.JSONRPCNotification }

func (s *bareSession) Initialize()                                         {}
func (s *bareSession) Initialized() bool                                   { return true }
func (s *bareSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.notes }
func (s *bareSession) SessionID() string                                   { return "stdio" }

func TestHooksRememberTheNegotiatedVersionForStdio(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	hooks := &server.Hooks{}
	s := server.NewMCPServer("t", "0", server.WithHooks(hooks))
	s.Use(otel.Middleware(otel.WithTracerProvider(tp), otel.WithHooks(hooks)))
	s.AddTool(mcp.NewTool(toolName), failing(errors.New("x")))
	ctx := s.WithContext(context.Background(), &bareSession{notes: make(chan mcp.JSONRPCNotification, 8)})
	s.HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+protocolVersion+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
	s.HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+toolName+`"}}`))
	got := spans.GetSpans().Snapshots()
	require.Len(t, got, 1)
	attrs := values(got[0].Attributes())
	assert.Equal(t, protocolVersion, attrs[convProtocolVersion])
	assert.Equal(t, "pipe", attrs[convTransport])
	assert.Equal(t, "2", attrs[convRequestID])
}
