package otel

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// Log attribute keys that LogHandler adds.
const (
	// TraceIDKey holds the trace ID of the span in a record's context.
	TraceIDKey = "trace_id"
	// SpanIDKey holds the span ID of the span in a record's context.
	SpanIDKey = "span_id"
)

// LogHandler wraps h so that every record logged with a valid span in its
// context carries that span's trace_id and span_id, so a log line leads to
// its trace. mcpguard's layers log with the call's context, so their
// incident records get both. Each front's otel package exports it.
func LogHandler(h slog.Handler) slog.Handler { return logHandler{h} }

type logHandler struct{ slog.Handler }

func (h logHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(slog.String(TraceIDKey, sc.TraceID().String()), slog.String(SpanIDKey, sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return logHandler{h.Handler.WithAttrs(attrs)}
}

func (h logHandler) WithGroup(name string) slog.Handler { return logHandler{h.Handler.WithGroup(name)} }
