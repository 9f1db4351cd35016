// Package logkey names the attribute keys of every log record mcpguard's
// layers write, in every module, so that a query written against one layer's
// records works on another's. middleware re-exports the ones its users
// filter on (middleware.LogKeyTool, …).
package logkey

// Attribute keys.
const (
	Tool        = "tool"
	Duration    = "duration"
	Outcome     = "outcome"
	ErrorType   = "error_type"
	IncidentID  = "incident_id"
	Error       = "error"
	ErrorGoType = "error_go_type"
	Arguments   = "arguments"
	Panic       = "panic"
	PanicGoType = "panic_go_type"
	Stack       = "stack"
	Hint        = "hint"
	Coerced     = "coerced"
)

// Message is the message of the one record per tool call that each front's
// logging layer writes (middleware.LogMessage, gosdk.LogMessage).
const Message = "mcpguard: tool call"

// The values of the Outcome attribute: what the client received.
const (
	OutcomeSuccess       = "success"
	OutcomeToolError     = "tool_error"
	OutcomeProtocolError = "protocol_error"
)
