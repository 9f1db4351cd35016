package otel_test

import (
	"context"
	"testing"

	coreotel "github.com/mcpguard/mcpguard/core/otel"
	"github.com/mcpguard/mcpguard/core/otel/oteltest"
	"github.com/mcpguard/mcpguard/core/pipeline"
)

func text(s string) (string, bool) { return s, s != "<image>" }

// TestEndReadsEveryAnswerAlike: the one reading of an answer the three
// consumers share (End): the code of a JSON-RPC error (-32603 for none),
// the envelope of an error result's first text item, an input_required
// result that is no failure, and a success's text items joined with a
// line break under WithResults, a failure's never.
func TestEndReadsEveryAnswerAlike(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    coreotel.Answer[string]
		want map[string]string // the attributes End sets ("" absent)
	}{
		{"code 0", coreotel.Answer[string]{Answer: pipeline.Answer{Err: true}},
			map[string]string{oteltest.ErrorType: "-32603", oteltest.RPCStatusCode: "-32603"}},
		{"code", coreotel.Answer[string]{Answer: pipeline.Answer{Err: true}, Code: -32042},
			map[string]string{oteltest.ErrorType: "-32042", oteltest.RPCStatusCode: "-32042"}},
		{"error result", coreotel.Answer[string]{Answer: pipeline.Answer{IsError: true}, Content: []string{oteltest.ForeignText, "x"}, Text: text},
			map[string]string{oteltest.ErrorType: "tool_error", oteltest.GuardErrorType: "not_found", oteltest.Result: ""}},
		{"input required", coreotel.Answer[string]{Answer: pipeline.Answer{InputRequests: true}, Content: []string{"which?"}, Text: text},
			map[string]string{oteltest.ErrorType: "", oteltest.Result: ""}},
		{"success", coreotel.Answer[string]{Content: []string{"a", "<image>", "b"}, Text: text},
			map[string]string{oteltest.ErrorType: "", oteltest.Result: "a\nb"}},
		{"success without a reader", coreotel.Answer[string]{Content: []string{"a"}},
			map[string]string{oteltest.ErrorType: "", oteltest.Result: ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := oteltest.NewRecorder()
			in := coreotel.New("example.com/front", coreotel.WithTracerProvider(rec.TracerProvider),
				coreotel.WithMeterProvider(rec.MeterProvider), coreotel.WithResults())
			ctx, span := in.Start(context.Background(), &coreotel.Call{Method: coreotel.MethodCallTool, Tool: "t"})
			coreotel.End(ctx, span, tc.a)
			got := oteltest.Values(rec.Span(t).Attributes())
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}
