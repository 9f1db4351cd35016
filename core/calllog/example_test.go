package calllog_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/mcpguard/mcpguard/core/calllog"
	"github.com/mcpguard/mcpguard/core/envelope"
)

// exampleLogger writes text records to stdout without the time, so that
// the output is stable.
func exampleLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// A front reads its SDK's answer into a Call; the Logger decides the
// level and the attributes.
func ExampleLogger_Record() {
	ctx := context.Background()
	withArgs := calllog.New(exampleLogger(), calllog.WithArguments())
	withArgs.Record(ctx, calllog.Call{Tool: "shop_get", Duration: 2 * time.Millisecond, Outcome: calllog.Success,
		RawArgs: []byte(`{"id":"p-1","api_key":"sk-123"}`)})

	lg := calllog.New(exampleLogger())
	lg.Record(ctx, calllog.Call{Tool: "shop_get", Duration: time.Millisecond, Outcome: calllog.ToolError,
		Envelope: &envelope.Envelope{ErrorType: envelope.InternalError, IncidentID: "inc-7"}})
	lg.Record(ctx, calllog.Call{Tool: "shop_nope", Err: errors.New("unknown tool")})
	// Output:
	// level=INFO msg="mcpguard: tool call" tool=shop_get duration=2ms outcome=success arguments="{\"id\":\"p-1\",\"api_key\":\"[REDACTED]\"}"
	// level=ERROR msg="mcpguard: tool call" tool=shop_get duration=1ms outcome=tool_error error_type=internal_error incident_id=inc-7
	// level=ERROR msg="mcpguard: tool call" tool=shop_nope duration=0s outcome=protocol_error error="unknown tool"
}

// WithLevels moves successes and tool errors; internal and protocol errors
// stay at Error.
func ExampleWithLevels() {
	lg := calllog.New(exampleLogger(), calllog.WithLevels(slog.LevelDebug, slog.LevelInfo))
	lg.Record(context.Background(), calllog.Call{Tool: "shop_get", Outcome: calllog.ToolError,
		Envelope: &envelope.Envelope{ErrorType: envelope.NotFound}})
	// Output:
	// level=INFO msg="mcpguard: tool call" tool=shop_get duration=0s outcome=tool_error error_type=not_found
}
