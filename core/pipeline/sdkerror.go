package pipeline

import "strings"

// SDKError is what an MCP SDK's own JSON-RPC error, sent in place of a
// tool handler's answer, says of the call. A front reads it on its SDK's
// answer and mcpguard-proxy on an upstream's, so the SDKs' texts are
// written down once, here.
type SDKError uint8

// The SDK errors a consumer answers as the failure they stand for.
const (
	// NotSDKError: any other JSON-RPC error, which stays what it is (an
	// unknown tool, invalid params, an error of the handler's own).
	NotSDKError SDKError = iota
	// SDKPanic: mcp-go recovered a panic in the handler, a call's
	// (WithRecovery: "panic recovered in %s tool handler: %v") or a
	// task's ("panic in task tool handler %s: %v"). It is answered as
	// [Panic]: an internal_error under an incident, the text logged.
	SDKPanic
	// SDKMissing: mcp-go's handler returned neither a result nor an error
	// ("tool '%s' handler returned no result"). It is answered as
	// [Missing].
	SDKMissing
	// SDKRefusedResult: go-sdk (v1.8.0, mcp/mrtr.go) refused to send a
	// handler's result that asks for input and has content too. It is
	// answered as a result that cannot be sent: an internal_error under
	// an incident.
	SDKRefusedResult
)

// The SDKs' texts ReadSDKError knows.
const (
	mcpgoPanic       = "panic recovered in "
	mcpgoPanicTail   = " tool handler: "
	mcpgoTaskPanic   = "panic in task tool handler "
	mcpgoNoResult    = "' handler returned no result"
	goSDKMixedResult = "server bug: result has both content and inputRequests"
)

// ReadSDKError reads the JSON-RPC error (code, message) that answered a
// call of tool. Each of these is an internal error (-32603); any other
// code is [NotSDKError].
func ReadSDKError(code int, message, tool string) SDKError {
	if code != -32603 {
		return NotSDKError
	}
	// ifs, not a switch: scripts/mutation's gremlins sees no block under
	// a case expression.
	if message == goSDKMixedResult {
		return SDKRefusedResult
	}
	if mcpgoMissing(message, tool) {
		return SDKMissing
	}
	if mcpgoPanicked(message) {
		return SDKPanic
	}
	return NotSDKError
}

// mcpgoPanicked reports whether message is mcp-go's answer to a panic it
// recovered in a call's or a task's handler.
func mcpgoPanicked(message string) bool {
	if rest, ok := strings.CutPrefix(message, mcpgoTaskPanic); ok {
		return strings.Contains(rest, ": ")
	}
	return strings.HasPrefix(message, mcpgoPanic) && strings.Contains(message, mcpgoPanicTail)
}

// mcpgoMissing reports whether message is mcp-go's answer to tool's
// handler returning neither a result nor an error, read in place: an
// error path builds no string to compare with.
func mcpgoMissing(message, tool string) bool {
	rest, ok := strings.CutPrefix(message, "tool '")
	if !ok {
		return false
	}
	name, ok := strings.CutSuffix(rest, mcpgoNoResult)
	return ok && name == tool
}
