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
	// Keys of what a rate or concurrency limit made of a call it could
	// hold: held, refused (after a hold) or shed, and the milliseconds it
	// held it.
	Admission = "admission"
	HeldMS    = "held_ms"
	// Keys of a declared schema's keyword that is not enforced.
	Property = "property"
	Keyword  = "keyword"
	// Keys of mcpguard-proxy's records of what it dropped or bounded.
	Method     = "method"
	RequestID  = "request_id"
	Bytes      = "bytes"
	Limit      = "limit"
	HTTPStatus = "http_status"
	// Key of a rate limit's records of its store's outage: how many calls
	// it decided without the store.
	DecidedWithoutStore = "decided_without_store"
)

// Message is the message of the one record per tool call that each front's
// logging layer writes (middleware.LogMessage, gosdk.LogMessage).
const Message = "mcpguard: tool call"

// The values of the Outcome attribute: what the client received.
const (
	OutcomeSuccess       = "success"
	OutcomeToolError     = "tool_error"
	OutcomeProtocolError = "protocol_error"
	OutcomeInputRequired = "input_required"
)
