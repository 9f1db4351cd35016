package pipeline

import "github.com/mcpguard/mcpguard/core/calllog"

// Outcome is what a tool call ended as, before the consumer answers it.
type Outcome uint8

// The outcomes. The zero value is ProtocolError, so that an answer a
// consumer could not read is never taken for a success.
const (
	// ProtocolError: a JSON-RPC error that stays one (an unknown tool, a
	// URL elicitation on an older protocol, a handler's own JSON-RPC error).
	ProtocolError Outcome = iota
	// Success: a result without isError.
	Success
	// InputRequired: a multi round-trip result asking the client for input
	// before the call can complete. Not a failure.
	InputRequired
	// Task: a handle to a task the call started. Not a failure.
	Task
	// ErrorResult: a result with isError that the handler built itself.
	ErrorResult
	// Missing: the handler returned neither a result nor an error.
	Missing
	// GoError: the handler returned an error.
	GoError
	// Panic: the handler, or a layer, panicked.
	Panic
	// Refused: a stage of the admission refused the call before its
	// handler ran (a limit, the declared-schema check, the repeated-failure
	// guard).
	Refused
)

var outcomeNames = [...]string{
	ProtocolError: "protocol_error",
	Success:       "success",
	InputRequired: "input_required",
	Task:          "task",
	ErrorResult:   "error_result",
	Missing:       "missing",
	GoError:       "go_error",
	Panic:         "panic",
	Refused:       "refused",
}

// String returns the outcome's name, as in the package documentation's
// table.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// Redaction says what of an answer is redacted.
type Redaction uint8

// The redactions.
const (
	// RedactWithSuccesses: only when the consumer is configured to redact
	// successful results too.
	RedactWithSuccesses Redaction = iota
	// RedactAll: every text position of the result.
	RedactAll
	// RedactMessage: the protocol error's message and data.
	RedactMessage
)

// Policy is what becomes of one outcome.
type Policy struct {
	// Envelope: the answer is an error result carrying an envelope, built
	// with [BuildError].
	Envelope bool
	// Failure: the call failed (the repeated-failure guard counts it, the
	// span's status is an error).
	Failure bool
	// Releases: the call is over and did not fail, so the
	// repeated-failure guard releases the caller's counts (a success, a
	// task). An input_required round neither fails nor releases: the
	// call is not over (its re-send may fail yet), and a load-shedding
	// round is the limit's answer, not the handler's.
	Releases bool
	// DropForgedFailure: a toolFailure _meta in the handler's own result
	// is dropped; only the envelope layer writes one.
	DropForgedFailure bool
	// Redact says what is redacted.
	Redact Redaction
	// SuccessHints: the hints layer's success steps apply.
	SuccessHints bool
	// Log is the outcome the per-call log record and span give.
	Log calllog.Outcome
}

var policies = [...]Policy{
	ProtocolError: {Failure: true, Redact: RedactMessage, Log: calllog.ProtocolError},
	Success:       {Releases: true, DropForgedFailure: true, SuccessHints: true, Log: calllog.Success},
	InputRequired: {DropForgedFailure: true, Log: calllog.InputRequired},
	Task:          {Releases: true, DropForgedFailure: true, Log: calllog.Success},
	ErrorResult:   {Envelope: true, Failure: true, DropForgedFailure: true, Redact: RedactAll, Log: calllog.ToolError},
	Missing:       {Envelope: true, Failure: true, Redact: RedactAll, Log: calllog.ToolError},
	GoError:       {Envelope: true, Failure: true, Redact: RedactAll, Log: calllog.ToolError},
	Panic:         {Envelope: true, Failure: true, Redact: RedactAll, Log: calllog.ToolError},
	Refused:       {Envelope: true, Failure: true, Redact: RedactAll, Log: calllog.ToolError},
}

// Policy returns what becomes of o. An unknown outcome gets
// ProtocolError's policy.
func (o Outcome) Policy() Policy {
	if int(o) < len(policies) {
		return policies[o]
	}
	return policies[ProtocolError]
}

// Answer is what a handler (and the layers inside the consumer) answered
// a call with, as a consumer reads it off its SDK's types or the wire.
type Answer struct {
	// Err: an error instead of a result.
	Err bool
	// Protocol: that error must stay a JSON-RPC error.
	Protocol bool
	// Nil: neither a result nor an error.
	Nil bool
	// IsError: the result has isError: true.
	IsError bool
	// ResultType is the result's resultType, as the SDK or the wire has
	// it ("" for none). The consumer passes it on; only [Decide] reads it.
	ResultType string
	// InputRequests: the result carries input requests (an SDK that
	// answers them itself for a client of an older protocol leaves its
	// resultType unset).
	InputRequests bool
	// Task: the result is a handle to a task (the answer to a
	// task-augmented call, whose result comes later). Only mcpguard-proxy
	// sees one: on mcp-go the front's layers run the task's handler, and
	// see its result, never the handle; go-sdk v1.8.0 has no tasks.
	Task bool
}

// ResultTypeInputRequired is the resultType of a multi round-trip result
// asking the client for input before the call can complete (MCP
// 2026-07-28, SEP-2322).
const ResultTypeInputRequired = "input_required"

// asksForInput is what input_required means, for every consumer: the
// result's resultType says so, or it carries input requests.
func (a Answer) asksForInput() bool {
	return a.ResultType == ResultTypeInputRequired || a.InputRequests
}

// Decide returns the outcome of a: a protocol error stays one, any other
// error is a GoError, no result is Missing, a result with isError is an
// ErrorResult whatever else it claims (so that a relayed result cannot
// escape the envelope, the tool's error hints and the redaction of
// failures by also asking for input), a result asking for input (its
// resultType is input_required, or it carries input requests) or naming a
// task is that, and the rest is a Success. Consumers read no resultType
// themselves: they pass it here. Panic and Refused are the outcomes of the layers
// that catch a panic or refuse a call; Decide never returns them.
func Decide(a Answer) Outcome {
	switch {
	case a.Err && a.Protocol:
		return ProtocolError
	case a.Err:
		return GoError
	case a.Nil:
		return Missing
	case a.IsError:
		return ErrorResult
	case a.asksForInput():
		return InputRequired
	case a.Task:
		return Task
	}
	return Success
}
