// Package otel is the SDK-neutral half of mcpguard's OpenTelemetry
// integration: the span names, attributes and metric of the OpenTelemetry
// semantic conventions for MCP, mcpguard's error taxonomy on failed calls
// (mcpguard.error_type, mcpguard.incident_id), and trace context read from
// params._meta. Each consumer reads its SDK's request (or the wire's) into a
// [Call], starts a [Span] with [Instrument.Start], and ends it with [End],
// given the [Answer] it read off its SDK's answer:
//
//   - github.com/mcpguard/mcpguard/otel for mark3labs/mcp-go,
//   - github.com/mcpguard/mcpguard/gosdk/otel for the official go-sdk,
//   - mcpguard-proxy's --otel, on the wire.
//
// Use one of those; this module is what they share, so that all record the
// same telemetry for the same call, and so that neither SDK is in the other
// front's module graph.
//
// # One reading of an answer
//
// [End] is the one place that tells what a call ended as: it passes the
// answer to core/pipeline's Decide, and names it by the outcome policy's
// log outcome, so that the per-call log record and the span agree. The
// consumers read their SDK's types; they decide nothing. Where the three
// once read an answer each their own way, this is the rule:
//
//   - An error is a JSON-RPC error, whose code is the one the client
//     receives: mcp-go sends -32603 for any Go error but a URL elicitation
//     before MCP 2026-07-28 (-32042), go-sdk the code of a *jsonrpc.Error
//     in the chain, the proxy relays the upstream's. A code of 0 (go-sdk's
//     for a plain Go error) counts as -32603, internal error, so that the
//     same handler error is the same series behind a front and behind the
//     proxy.
//   - An error result's envelope is read from its first text item, where
//     every consumer's error result carries it (structured content is left
//     out for a tool that declares an output schema, and a relay reads only
//     the wire).
//   - [WithResults] records the text of successes only (the conventions'
//     "if execution was successful"): a failure's text is an error message,
//     which no attribute carries. The text items are joined with a line
//     break, core/pipeline's JoinText.
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
//   - A call a rate or concurrency limit held (core/limit's Absorb notes
//     it on the calllog.Note that [Instrument.Start] puts in the call's
//     context) carries mcpguard.limit.admission, on the metric too, and
//     mcpguard.limit.held_ms.
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
