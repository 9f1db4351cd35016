package otel_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/core/otel/oteltest"
	"github.com/mcpguard/mcpguard/otel"
)

const resourceURI = "shop://orders?token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"

// readResource reads resourceURI from a real server whose resource layer is
// otel.ResourceMiddleware(opts...), and returns the JSON the client gets.
func readResource(t *testing.T, rec *oteltest.Recorder, fail error, opts ...otel.Option) string {
	t.Helper()
	opts = append([]otel.Option{otel.WithTracerProvider(rec.TracerProvider), otel.WithMeterProvider(rec.MeterProvider)}, opts...)
	s := server.NewMCPServer("t", "0", server.WithResourceHandlerMiddleware(otel.ResourceMiddleware(opts...)))
	s.AddResource(mcp.NewResource(resourceURI, "orders"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		if fail != nil {
			return nil, fail
		}
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: resourceURI, Text: "[]"}}, nil
	})
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": map[string]any{"uri": resourceURI}})
	raw, err := json.Marshal(s.HandleMessage(context.Background(), msg))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func TestResourceURIIsRedacted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []otel.Option
		want string // "": absent
	}{
		{"default masks secret shapes", nil, "shop://orders?token="},
		{"a hook of one's own", []otel.Option{otel.WithURIRedactor(func(u string) string { return strings.SplitN(u, "?", 2)[0] })}, "shop://orders"},
		{"a hook that leaves it out", []otel.Option{otel.WithURIRedactor(func(string) string { return "" })}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := oteltest.NewRecorder()
			if raw := readResource(t, rec, nil, tc.opts...); !strings.Contains(raw, `"contents"`) {
				t.Fatalf("read failed: %s", raw)
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

func TestFailedResourceReadIsItsJSONRPCCode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		code string
	}{
		{server.ErrResourceNotFound, "-32002"},
		{errors.New("dial " + oteltest.Secret), "-32603"},
	} {
		rec := oteltest.NewRecorder()
		readResource(t, rec, tc.err)
		span := rec.Span(t)
		if got := oteltest.Values(span.Attributes())[oteltest.ErrorType]; got != tc.code {
			t.Errorf("%v: error.type %q, want %s", tc.err, got, tc.code)
		}
		oteltest.NoLeak(t, span, rec.PointOf(t, "resources/read", true))
	}
}

func TestWithMethodsFilters(t *testing.T) {
	t.Parallel()
	rec := oteltest.NewRecorder()
	h := server.ToolHandlerFunc(failing(errors.New("x")))
	only := otel.WithMethods("resources/read")
	mw := otel.Middleware(otel.WithTracerProvider(rec.TracerProvider), only)
	if reflect.ValueOf(mw(h)).Pointer() != reflect.ValueOf(h).Pointer() {
		t.Error("tools/call left out: want the handler itself")
	}
	readResource(t, rec, nil, only)
	if got := rec.Span(t).Name(); got != "resources/read" {
		t.Errorf("span %q, want resources/read", got)
	}
	rm := otel.ResourceMiddleware(otel.WithTracerProvider(rec.TracerProvider), otel.WithMethods("tools/call"))
	rh := server.ResourceHandlerFunc(func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) { return nil, nil })
	if reflect.ValueOf(rm(rh)).Pointer() != reflect.ValueOf(rh).Pointer() {
		t.Error("resources/read left out: want the handler itself")
	}
}

// mcp-go answers a call of a tool it does not have before any tool
// middleware runs: invented names record nothing, so add no series.
func TestInventedToolNamesRecordNothing(t *testing.T) {
	t.Parallel()
	rec := oteltest.NewRecorder()
	s := server.NewMCPServer("t", "0")
	s.Use(otel.Middleware(otel.WithTracerProvider(rec.TracerProvider), otel.WithMeterProvider(rec.MeterProvider)))
	s.AddTool(mcp.NewTool(toolName), failing(errors.New("x")))
	for i := range 20 {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"invented_%d"}}`, i, i)
		s.HandleMessage(context.Background(), json.RawMessage(msg))
	}
	if n, p := len(rec.Spans.GetSpans()), len(rec.Points(t)); n != 0 || p != 0 {
		t.Errorf("%d spans and %d metric series for invented tool names, want none", n, p)
	}
}
