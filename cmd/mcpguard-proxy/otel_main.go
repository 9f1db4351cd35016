package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	coreotel "github.com/mcpguard/mcpguard/core/otel"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// serviceName is service.name on everything the proxy exports, unless
// OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES says otherwise.
const serviceName = "mcpguard-proxy"

// shutdownWait bounds how long the exporters have to flush on exit.
const shutdownWait = 5 * time.Second

// errOtelStdout refuses --otel-stdout where stdout is the protocol.
var errOtelStdout = errors.New("--otel-stdout writes to stdout, which carries the MCP messages in stdio mode: " +
	"use --otel-stderr, or --otel with an OTLP collector")

// telemetry is what the --otel flags ask for: the proxy's option, the
// logger's handler (whose records then carry trace_id and span_id), and a
// function that flushes and stops the exporters. With no flag it returns
// nothing and the proxy installs nothing.
func telemetry(ctx context.Context, c *config, stdout, stderr io.Writer, h slog.Handler) ([]proxy.Option, slog.Handler, func(), error) {
	var spans []sdktrace.SpanExporter
	var metrics []sdkmetric.Exporter
	for _, w := range []struct {
		on  bool
		out io.Writer
	}{{c.otelStdout, stdout}, {c.otelStderr, stderr}} {
		if !w.on {
			continue
		}
		se, err := stdouttrace.New(stdouttrace.WithWriter(w.out), stdouttrace.WithPrettyPrint())
		if err != nil {
			return nil, h, nil, err
		}
		me, err := stdoutmetric.New(stdoutmetric.WithWriter(w.out), stdoutmetric.WithPrettyPrint())
		if err != nil {
			return nil, h, nil, err
		}
		spans, metrics = append(spans, se), append(metrics, me)
	}
	if c.otlp {
		// Configured by the standard OTEL_EXPORTER_OTLP_* variables
		// (endpoint, headers, timeout, compression, TLS), as any OTLP
		// exporter is.
		se, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, h, nil, err
		}
		me, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return nil, h, nil, err
		}
		spans, metrics = append(spans, se), append(metrics, me)
	}
	if len(spans) == 0 {
		return nil, h, func() {}, nil
	}
	return providers(ctx, spans, metrics, h)
}

// providers builds the tracer and meter providers over the exporters.
func providers(ctx context.Context, spans []sdktrace.SpanExporter, metrics []sdkmetric.Exporter, h slog.Handler) ([]proxy.Option, slog.Handler, func(), error) {
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName(serviceName), semconv.ServiceVersion(version())),
		resource.WithFromEnv()) // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
	if err != nil {
		return nil, h, nil, err
	}
	topts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	for _, e := range spans {
		topts = append(topts, sdktrace.WithBatcher(e))
	}
	mopts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	for _, e := range metrics {
		mopts = append(mopts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(e)))
	}
	tp, mp := sdktrace.NewTracerProvider(topts...), sdkmetric.NewMeterProvider(mopts...)
	shutdown := func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
		defer cancel()
		_ = tp.Shutdown(ctx) // flushes the spans in the batch
		_ = mp.Shutdown(ctx) // collects and exports the metric one last time
	}
	opt := proxy.WithTelemetry(coreotel.WithTracerProvider(tp), coreotel.WithMeterProvider(mp))
	return []proxy.Option{opt}, coreotel.LogHandler(h), shutdown, nil
}
