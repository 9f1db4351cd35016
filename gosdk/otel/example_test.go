package otel_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/otel"
)

func Example() {
	spans := tracetest.NewInMemoryExporter() // in production: an OTLP exporter
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))

	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1.0.0"}, nil)
	s.AddReceivingMiddleware(otel.Middleware(otel.WithTracerProvider(tp), otel.WithMethods("tools/call")), gosdk.Middleware())
	type args struct {
		ID string `json:"id"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "shop_get_product"}, func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, any, error) {
		return nil, nil, fmt.Errorf("product p-9999: %w", gosdk.ErrNotFound)
	})

	ct, st := mcp.NewInMemoryTransports()
	ss, _ := s.Connect(context.Background(), st, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "agent"}, nil).Connect(context.Background(), ct, nil)
	defer cs.Close()
	_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shop_get_product", Arguments: map[string]any{"id": "p-9999"}})

	span := spans.GetSpans()[0]
	fmt.Println(span.Name, span.SpanKind, span.Status.Code, span.Status.Description)
	for _, a := range span.Attributes {
		if a.Key != "mcp.protocol.version" {
			fmt.Printf("%s=%s\n", a.Key, a.Value.String())
		}
	}
	// Output:
	// tools/call shop_get_product server Error not_found
	// mcp.method.name=tools/call
	// gen_ai.tool.name=shop_get_product
	// gen_ai.operation.name=execute_tool
	// jsonrpc.request.id=2
	// error.type=tool_error
	// mcpguard.error_type=not_found
}
