package proxy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	coreotel "github.com/mcpguard/mcpguard/core/otel"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// A server that answers a tool call with a JSON-RPC error, and leaks a
// password in it: through the proxy the agent gets an envelope, redacted.
func ExampleNewHTTP() {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ ID json.RawMessage }
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"dial postgres://app:hunter2@db:5432 failed"}}`, req.ID)
	}))
	defer upstream.Close()
	p := httptest.NewServer(proxy.NewHTTP(upstream.URL, proxy.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))))
	defer p.Close()

	resp, err := http.Post(p.URL, "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"db_query","arguments":{}}}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var answer struct {
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				ErrorType string `json:"error_type"`
				Message   string `json:"message"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&answer)
	fmt.Println(answer.Result.IsError, answer.Result.StructuredContent.ErrorType)
	fmt.Println(answer.Result.StructuredContent.Message)
	// Output:
	// true execution_failed
	// dial postgres://app:[REDACTED]@db:5432 failed
}

// A hints file is checked when it is read: a code that is not one of the
// seven, a hint without steps or an unknown member is refused.
func ExampleParseConfig() {
	_, err := proxy.ParseConfig([]byte(`
hints:
  - tool: read_file
    code: missing
    steps:
      - call: list_directory
        why: to see which files exist
`))
	fmt.Println(err)
	c, err := proxy.ParseConfig([]byte(`{"hints": [{"tool": "read_file", "code": "not_found", "steps": [{"text": "Ask for the exact path."}]}]}`))
	fmt.Println(len(c.Hints), err)
	// Output:
	// hints file: envelope: unknown error_type "missing"
	// 1 <nil>
}

// With telemetry, each request the client sends is a span ended with what
// the client received: here the envelope the proxy made of the upstream's
// JSON-RPC error. (No tools/list was read, so the tool's name is _OTHER on
// the metric and the span is named by its method only.)
func ExampleWithTelemetry() {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ ID json.RawMessage }
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"dial postgres://app:hunter2@db:5432 failed"}}`, req.ID)
	}))
	defer upstream.Close()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	mp := sdkmetric.NewMeterProvider()
	p := httptest.NewServer(proxy.NewHTTP(upstream.URL, proxy.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		proxy.WithTelemetry(coreotel.WithTracerProvider(tp), coreotel.WithMeterProvider(mp))))
	defer p.Close()

	resp, err := http.Post(p.URL, "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"db_query","arguments":{}}}`))
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	for _, s := range spans.GetSpans() {
		fmt.Println(s.Name, s.Status.Code)
		for _, kv := range s.Attributes {
			if kv.Key == "error.type" || kv.Key == "mcpguard.error_type" {
				fmt.Println(kv.Key, kv.Value.AsString())
			}
		}
	}
	// Output:
	// tools/call Error
	// error.type tool_error
	// mcpguard.error_type execution_failed
}
