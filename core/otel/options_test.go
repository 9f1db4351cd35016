package otel_test

import (
	"context"
	"testing"

	coreotel "github.com/mcpguard/mcpguard/core/otel"
	"github.com/mcpguard/mcpguard/core/otel/oteltest"
	"github.com/mcpguard/mcpguard/core/redact"
)

func recorded(t *testing.T, c coreotel.Call, opts ...coreotel.Option) map[string]string {
	t.Helper()
	rec := oteltest.NewRecorder()
	in := coreotel.New("example.com/front", append([]coreotel.Option{
		coreotel.WithTracerProvider(rec.TracerProvider), coreotel.WithMeterProvider(rec.MeterProvider),
	}, opts...)...)
	ctx, span := in.Start(context.Background(), &c)
	span.End(ctx, coreotel.Outcome{})
	return oteltest.Values(rec.Span(t).Attributes())
}

// TestWithCallDetailsFillsTheCall: what a front learns outside the request
// (a hook's request ID, a session's version) reaches the span, and a nil
// function leaves an earlier one in place.
func TestWithCallDetailsFillsTheCall(t *testing.T) {
	type key struct{}
	fill := func(ctx context.Context, c *coreotel.Call) {
		if id, ok := ctx.Value(key{}).(string); ok {
			c.RequestID = id
		}
		if c.ProtocolVersion == "" {
			c.ProtocolVersion = "2025-06-18"
		}
	}
	rec := oteltest.NewRecorder()
	in := coreotel.New("example.com/front", coreotel.WithTracerProvider(rec.TracerProvider),
		coreotel.WithMeterProvider(rec.MeterProvider),
		coreotel.WithCallDetails(fill), coreotel.WithCallDetails(nil))
	ctx := context.WithValue(context.Background(), key{}, "42")
	ctx, span := in.Start(ctx, &coreotel.Call{Method: coreotel.MethodCallTool, Tool: "shop_search"})
	span.End(ctx, coreotel.Outcome{})
	got := oteltest.Values(rec.Span(t).Attributes())
	if got["jsonrpc.request.id"] != "42" || got["mcp.protocol.version"] != "2025-06-18" {
		t.Errorf("attributes %v: want the filled-in jsonrpc.request.id=42 and mcp.protocol.version", got)
	}

	plain := recorded(t, coreotel.Call{Method: coreotel.MethodCallTool, Tool: "shop_search"})
	if _, ok := plain["jsonrpc.request.id"]; ok {
		t.Errorf("without WithCallDetails: %v, want no request ID", plain)
	}
}

func TestOptionPanicsNameTheOption(t *testing.T) {
	for want, make := range map[string]func(){
		"mcpguard/otel: WithMethods needs at least one method name":   func() { coreotel.WithMethods() },
		"mcpguard/otel: WithMethods: a method name must not be empty": func() { coreotel.WithMethods("tools/call", "") },
		"mcpguard/otel: WithURIRedactor needs a function, not nil":    func() { coreotel.WithURIRedactor(nil) },
	} {
		func() {
			defer func() {
				if got := recover(); got != want {
					t.Errorf("panic %v, want %q", got, want)
				}
			}()
			make()
		}()
	}
}

func TestOptionDefaults(t *testing.T) {
	in := coreotel.New("example.com/front", nil, coreotel.WithPropagator(nil)) // both skipped
	if !in.Traces(coreotel.MethodCallTool) || !in.Traces(coreotel.MethodReadResource) {
		t.Error("without WithMethods every method is traced")
	}
	if in.RecordsArguments() || in.RecordsResults() {
		t.Error("arguments and results are recorded only when asked for")
	}
	only := coreotel.New("example.com/front", coreotel.WithMethods(coreotel.MethodReadResource))
	if only.Traces(coreotel.MethodCallTool) || !only.Traces(coreotel.MethodReadResource) {
		t.Error("WithMethods traces the methods named and no other")
	}

	secret := "https://shop.example/orders?access_token=ghp_" + "0123456789abcdefghijklmnopqrstuvwxyzAB"
	read := coreotel.Call{Method: coreotel.MethodReadResource, URI: secret}
	if got := recorded(t, read)["mcp.resource.uri"]; got == secret {
		t.Errorf("mcp.resource.uri %q: the default redacts the token", got)
	}
	if got := recorded(t, read, coreotel.WithRedactor(redact.New()))["mcp.resource.uri"]; got != secret {
		t.Errorf("mcp.resource.uri %q: with a redactor of no rules, the URI as sent", got)
	}
	if got, ok := recorded(t, read, coreotel.WithURIRedactor(func(string) string { return "" }))["mcp.resource.uri"]; ok {
		t.Errorf("mcp.resource.uri %q: an empty answer of the URI redactor leaves it out", got)
	}
}
