package otel_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/otel"
)

func Example() {
	spans := tracetest.NewInMemoryExporter() // in production: an OTLP exporter
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))

	hooks := &server.Hooks{}
	s := server.NewMCPServer("shop", "1.0.0", server.WithHooks(hooks))
	s.Use(otel.Middleware(otel.WithTracerProvider(tp), otel.WithHooks(hooks)))
	s.Use(middleware.Default()...)
	s.AddTool(mcp.NewTool("shop_get_product"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("product p-9999: %w", envelope.ErrNotFound)
	})

	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"shop_get_product","arguments":{"id":"p-9999"}}}`
	s.HandleMessage(context.Background(), json.RawMessage(call))

	span := spans.GetSpans()[0]
	fmt.Println(span.Name, span.SpanKind, span.Status.Code, span.Status.Description)
	for _, a := range span.Attributes {
		fmt.Printf("%s=%s\n", a.Key, a.Value.String())
	}
	// Output:
	// tools/call shop_get_product server Error not_found
	// mcp.method.name=tools/call
	// gen_ai.tool.name=shop_get_product
	// gen_ai.operation.name=execute_tool
	// jsonrpc.request.id=7
	// error.type=tool_error
	// mcpguard.error_type=not_found
}
