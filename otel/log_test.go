package otel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/otel"
)

func TestLogHandlerLeadsFromTheIncidentRecordToTheTrace(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	var buf bytes.Buffer
	logger := slog.New(otel.LogHandler(slog.NewJSONHandler(&buf, nil)).WithAttrs([]slog.Attr{slog.String("app", "shop")}))
	layers := append([]server.ToolHandlerMiddleware{otel.Middleware(otel.WithTracerProvider(tp))},
		middleware.Default(middleware.WithLogger(logger))...)
	srv := middlewaretest.New(t, mcp.NewTool(toolName), failing(errors.New("boom")), layers...)
	r := srv.Call(nil)
	require.NotNil(t, r.Envelope)

	span := spans.GetSpans().Snapshots()[0]
	found := false
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var rec map[string]any
		require.NoError(t, json.Unmarshal(line, &rec))
		if rec["incident_id"] != r.Envelope.IncidentID {
			continue
		}
		found = true
		assert.Equal(t, span.SpanContext().TraceID().String(), rec[otel.TraceIDKey])
		assert.Equal(t, span.SpanContext().SpanID().String(), rec[otel.SpanIDKey])
		assert.Equal(t, "shop", rec["app"])
	}
	assert.True(t, found, "the incident was logged: %s", buf.String())

	buf.Reset()
	logger.InfoContext(context.Background(), "no span")
	assert.NotContains(t, buf.String(), otel.TraceIDKey)
}
