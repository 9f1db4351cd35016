package otel_test

import (
	"context"
	"fmt"

	coreotel "github.com/mcpguard/mcpguard/core/otel"
	"github.com/mcpguard/mcpguard/core/otel/oteltest"
)

// A front reads its SDK's request into a Call, starts the span, and ends
// it with what the answer became.
func Example() {
	rec := oteltest.NewRecorder() // in production: an SDK with an OTLP exporter
	in := coreotel.New("example.com/front",
		coreotel.WithTracerProvider(rec.TracerProvider), coreotel.WithMeterProvider(rec.MeterProvider))

	ctx, span := in.Start(context.Background(), &coreotel.Call{
		Method: coreotel.MethodCallTool, Tool: "shop_get_product", RequestID: "7",
	})
	_ = ctx // the handler runs with ctx, inside the span
	span.End(ctx, coreotel.ToolError(`{"success":false,"error_type":"not_found","tool":"shop_get_product","message":"no such product","next_steps":[],"retryable":false}`))

	s := rec.Spans.GetSpans()[0]
	fmt.Println(s.Name, s.SpanKind, s.Status.Code, s.Status.Description)
	for _, a := range s.Attributes {
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

// A program that configures no OpenTelemetry has the API's global
// providers and no SDK: the Instrument exists, so that an SDK registered
// later is used, but is not Active, and fronts pass calls through.
func ExampleInstrument_Active() {
	in := coreotel.New("example.com/front")
	fmt.Println(in != nil, in.Traces("tools/call"), in.Active())
	// Output: true true false
}
