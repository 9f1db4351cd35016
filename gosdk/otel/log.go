package otel

import (
	"log/slog"

	coreotel "github.com/mcpguard/mcpguard/core/otel"
)

// Log attribute keys that LogHandler adds.
const (
	// TraceIDKey holds the trace ID of the span in a record's context.
	TraceIDKey = coreotel.TraceIDKey
	// SpanIDKey holds the span ID of the span in a record's context.
	SpanIDKey = coreotel.SpanIDKey
)

// LogHandler wraps h so that every record logged with a valid span in its
// context carries that span's trace_id and span_id, so a log line leads to
// its trace. gosdk.Middleware logs with the call's context, so its records
// get both:
//
//	logger := slog.New(otel.LogHandler(slog.NewJSONHandler(os.Stderr, nil)))
//	server.AddReceivingMiddleware(otel.Middleware(), gosdk.Middleware(gosdk.WithLogger(logger)))
func LogHandler(h slog.Handler) slog.Handler { return coreotel.LogHandler(h) }
