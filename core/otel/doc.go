// Package otel is the SDK-neutral half of mcpguard's OpenTelemetry
// integration: the span names, attributes and metric of the OpenTelemetry
// semantic conventions for MCP, mcpguard's error taxonomy on failed calls
// (mcpguard.error_type, mcpguard.incident_id), and trace context read from
// params._meta. Each front reads its SDK's request into a [Call], starts a
// [Span] with [Instrument.Start], and ends it with the [Outcome] its SDK's
// answer became:
//
//   - github.com/mcpguard/mcpguard/otel for mark3labs/mcp-go,
//   - github.com/mcpguard/mcpguard/gosdk/otel for the official go-sdk.
//
// Use one of those; this module is what they share, so that both record the
// same telemetry for the same call, and so that neither SDK is in the other
// front's module graph.
//
// # Guarantees
//
//   - One SERVER span per traced request, named "{mcp.method.name}
//     {target}" (the tool or prompt name; resources/read has no target in
//     its name, its URI is an attribute).
//   - Span attributes: mcp.method.name, gen_ai.tool.name and
//     gen_ai.operation.name=execute_tool (tools/call), gen_ai.prompt.name
//     (prompts/get), mcp.resource.uri (resources/read, through the URI
//     redactor, at most 1 KiB), mcp.protocol.version, mcp.session.id,
//     jsonrpc.request.id and network.transport, each when the front knows it.
//   - A failed call sets error.type (tool_error for an isError result, the
//     JSON-RPC code for a protocol error, panic for a panic that went on),
//     span status Error, mcpguard.error_type (one of the seven codes) and,
//     for an internal error, mcpguard.incident_id.
//   - The histogram mcp.server.operation.duration, in seconds with the
//     conventions' buckets, carries only the low-cardinality attributes:
//     no session, request or incident ID, no URI, and for a tool the server
//     does not have, gen_ai.tool.name=_OTHER ([OtherTool]).
//   - No attribute carries an argument value, an error message or a panic
//     value, unless [WithArguments] or [WithResults] opts in, and then
//     redacted and bounded to 64 KiB.
//   - With both providers the API's no-op ones, [New] returns nil and the
//     fronts install nothing.
package otel
