// Package otel traces and measures the requests of a server on the
// official Go SDK (github.com/modelcontextprotocol/go-sdk) by the
// OpenTelemetry semantic conventions for MCP, with mcpguard's closed error
// taxonomy on every failed tool call: the same spans, metric and
// attributes as the mcp-go front's github.com/mcpguard/mcpguard/otel, from
// the same SDK-neutral code (github.com/mcpguard/mcpguard/core/otel).
//
// It is a module of its own (github.com/mcpguard/mcpguard/gosdk/otel): a
// go-sdk server that does not import it has no OpenTelemetry in its module
// graph, and one that does has no mcp-go.
//
// # Guarantees
//
//   - One SERVER span per request (notifications aside), named
//     "tools/call {tool}" for a tool call, with mcp.method.name,
//     gen_ai.tool.name, gen_ai.operation.name=execute_tool,
//     mcp.protocol.version, mcp.session.id (while the protocol has
//     sessions), jsonrpc.request.id and, over HTTP, network.transport=tcp.
//     prompts/get spans carry gen_ai.prompt.name; resources/read spans
//     mcp.resource.uri, through [WithURIRedactor]. [WithMethods] narrows the
//     methods traced.
//   - A result with isError: true sets error.type=tool_error and span
//     status Error; mcpguard.error_type carries the envelope's code (one of
//     seven) and, for an internal error, mcpguard.incident_id leads from the
//     trace to the server's log record. A recovered panic is exactly that:
//     one span, status Error, the incident ID, and no stack or panic value.
//   - A call of a 2026-07-28 client that a rate or concurrency limit held
//     carries mcpguard.limit.admission (held, refused after the hold, or
//     shed; on the metric too) and mcpguard.limit.held_ms.
//   - The histogram mcp.server.operation.duration, in seconds with the
//     conventions' bucket boundaries, has the span's low-cardinality
//     attributes only. A tool name the server does not have is recorded as
//     _OTHER there, so invented names add no series. Argument values,
//     error messages and panic values are never attributes, unless you opt
//     in with [WithArguments] or [WithResults], and then redacted.
//   - A trace context the client sends in params._meta (traceparent,
//     tracestate, baggage) is the parent of the request's span.
//   - With no provider configured (the API's no-op ones), Middleware
//     returns the handler itself: no allocation, no work.
//
// # Place in the chain
//
// First, before gosdk.Middleware, so that it is outermost and records what
// the client finally receives, a recovered panic included:
//
//	server.AddReceivingMiddleware(otel.Middleware(), gosdk.Middleware())
//
// # What go-sdk does not tell
//
// network.transport is recorded for HTTP only: go-sdk gives a handler no
// way to tell stdio from an in-memory transport. go-sdk keeps a request's
// JSON-RPC ID in its context under an unexported key; this package finds
// that key once (see requestid.go) and leaves jsonrpc.request.id out if a
// go-sdk release changes it.
//
// To tie log lines to traces, wrap your slog handler with [LogHandler].
package otel
