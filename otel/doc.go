// Package otel traces and measures mcp-go tool calls by the OpenTelemetry
// semantic conventions for MCP, with mcpguard's closed error taxonomy on
// every failed call.
//
// It is a module of its own (github.com/mcpguard/mcpguard/otel), so the core
// module stays free of OpenTelemetry. This module serves mark3labs/mcp-go;
// the official go-sdk gets the same layer in github.com/mcpguard/mcpguard/gosdk/otel.
// Both record through github.com/mcpguard/mcpguard/core/otel, so the same
// call gives the same span and metric on either front.
//
// # Guarantees
//
//   - One SERVER span per tools/call, named "tools/call {tool}", with the
//     conventions' attributes: mcp.method.name, gen_ai.tool.name,
//     gen_ai.operation.name=execute_tool, mcp.protocol.version,
//     mcp.session.id (while the protocol has sessions), network.transport
//     (tcp for HTTP, pipe for stdio) and jsonrpc.request.id (with
//     [WithHooks]).
//   - A result with isError: true sets error.type=tool_error, as the
//     conventions say, and span status Error; mcpguard.error_type carries
//     the envelope's code (one of seven) and, for an internal error,
//     mcpguard.incident_id leads from the trace to the server's log record.
//     A recovered panic is exactly that: one span, status Error, the
//     incident ID, and no stack or panic value anywhere in it.
//   - A call of a 2026-07-28 client that a rate or concurrency limit held
//     carries mcpguard.limit.admission (held, refused after the hold, or
//     shed; on the metric too) and mcpguard.limit.held_ms.
//   - The histogram mcp.server.operation.duration, in seconds with the
//     conventions' bucket boundaries, has the same low-cardinality
//     attributes as the span, without session, request or incident IDs.
//     Argument values are never attributes, unless you opt in with
//     [WithArguments], and then redacted.
//   - A trace context the client sends in params._meta (traceparent,
//     tracestate, baggage) is the parent of the call's span, on every
//     transport.
//   - resources/read is traced too with [ResourceMiddleware], its URI as
//     mcp.resource.uri through [WithURIRedactor]; [WithMethods] picks the
//     methods traced.
//   - With no SDK registered (the global providers of a program that sets
//     up no OpenTelemetry), calls pass through without allocating.
//
// # Place in the chain
//
// Outermost, before middleware.Default, so that it records what the client
// finally receives, a recovered panic included:
//
//	s.Use(otel.Middleware())
//	s.Use(middleware.Default()...)
//
// # Why
//
// mcp-go's own tracing hooks use older names (mcp.method, mcp.tool.name,
// spans "tool.<name>") and record no error.type. A closed, low-cardinality
// error taxonomy is what makes tool failures countable on a dashboard:
// "not_found rose after the deploy" instead of a wall of free text.
//
// To tie log lines to traces, wrap your slog handler with [LogHandler]: it
// adds trace_id and span_id to every record logged with a span in its
// context, mcpguard's incident records included.
package otel
