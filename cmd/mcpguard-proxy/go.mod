module github.com/mcpguard/mcpguard/cmd/mcpguard-proxy

go 1.25.5

require (
	github.com/mcpguard/mcpguard/core v0.0.0
	github.com/mcpguard/mcpguard/core/otel v0.0.0
	github.com/mcpguard/mcpguard/internal v0.0.0
)

require (
	go.opentelemetry.io/otel v1.46.0
	go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp v1.46.0
	go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp v1.46.0
	go.opentelemetry.io/otel/exporters/stdout/stdoutmetric v1.46.0
	go.opentelemetry.io/otel/exporters/stdout/stdouttrace v1.46.0
	go.opentelemetry.io/otel/sdk v1.46.0
	go.opentelemetry.io/otel/sdk/metric v1.46.0
)

require golang.org/x/time v0.15.0

require (
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875
	go.yaml.in/yaml/v3 v3.0.5
)
