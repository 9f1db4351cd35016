package otel

import "go.opentelemetry.io/otel/attribute"

// The attribute and metric names of the OpenTelemetry semantic conventions
// for MCP (maintained with the GenAI conventions, status Development) that
// the semconv package of go.opentelemetry.io/otel does not define. The ones
// it defines (error.type, jsonrpc.request.id, network.transport,
// network.protocol.name, rpc.response.status_code) come from semconv.
const (
	mcpMethodNameKey          = attribute.Key("mcp.method.name")
	mcpProtocolVersionKey     = attribute.Key("mcp.protocol.version")
	mcpSessionIDKey           = attribute.Key("mcp.session.id")
	mcpResourceURIKey         = attribute.Key("mcp.resource.uri")
	genAIToolNameKey          = attribute.Key("gen_ai.tool.name")
	genAIPromptNameKey        = attribute.Key("gen_ai.prompt.name")
	genAIOperationNameKey     = attribute.Key("gen_ai.operation.name")
	genAIToolCallArgumentsKey = attribute.Key("gen_ai.tool.call.arguments")
	genAIToolCallResultKey    = attribute.Key("gen_ai.tool.call.result")

	operationExecuteTool = "execute_tool"
	errorTypeToolError   = "tool_error"
	errorTypePanic       = "panic"

	durationMetric      = "mcp.server.operation.duration"
	durationUnit        = "s"
	durationDescription = "The duration of the MCP request as observed on the server, from when it was received until the result was sent."
)

// The methods whose target names the span.
const (
	MethodCallTool     = "tools/call"
	MethodReadResource = "resources/read"
	MethodGetPrompt    = "prompts/get"
)

// OtherTool is the gen_ai.tool.name on metrics of a call to a tool the
// server does not have: a name a client invents must not create a new
// metric series. ("_OTHER" is the conventions' value for a value outside
// the known set.)
const OtherTool = "_OTHER"

// OtherVersion is the mcp.protocol.version of a call whose version is not
// one the SDK knows: a version string is client text until the SDK has
// negotiated it, and must not create a metric series or carry kilobytes
// into a span.
const OtherVersion = "_OTHER"

// KnownVersion is v when it is one of known (the versions the SDK serving
// the call supports), [OtherVersion] when it is not, and "" when v is "".
func KnownVersion(v string, known []string) string {
	if v == "" {
		return ""
	}
	for _, k := range known {
		if v == k {
			return v
		}
	}
	return OtherVersion
}

// durationBuckets are the conventions' explicit bucket boundaries for
// mcp.server.operation.duration, in seconds.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// mcpguard's own attributes, beside the conventions' error.type=tool_error:
// the envelope's closed, low-cardinality error type, and the incident ID
// that leads from a trace to the server's log record.
const (
	// ErrorTypeKey is the envelope's error_type, one of the seven codes, on
	// spans and metrics of failed calls.
	ErrorTypeKey = attribute.Key("mcpguard.error_type")
	// IncidentIDKey is the envelope's incident_id, on spans of internal
	// errors only (never on metrics: every value is new).
	IncidentIDKey = attribute.Key("mcpguard.incident_id")
	// LimitAdmissionKey is what a rate or concurrency limit made of a call
	// it could hold (a client of MCP 2026-07-28): "held" (it ran after the
	// hold), "refused" (after the hold) or "shed", on spans and metrics;
	// absent for a call admitted, or refused, at once.
	LimitAdmissionKey = attribute.Key("mcpguard.limit.admission")
	// LimitHeldKey is how many milliseconds the limit held such a call,
	// on spans only.
	LimitHeldKey = attribute.Key("mcpguard.limit.held_ms")
)

var attrExecuteTool = genAIOperationNameKey.String(operationExecuteTool)
