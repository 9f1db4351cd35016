// Package pipeline is what happens to a tool call, decided once for every
// consumer of the core: the mcp-go front (packages middleware and
// envelope), the go-sdk front (module gosdk) and mcpguard-proxy. Each of
// them only translates its SDK's types, or the wire's JSON, into the terms
// of this package and back; none orders the stages of a call or chooses
// what becomes of its outcome in its own code.
//
// # One order of stages
//
// A call passes these stages, outermost first ([Order]; [Layers.Ordered]
// puts a consumer's layers in this order):
//
//	Log       the one record and span of what the client received
//	Recover   a panic anywhere inside becomes an internal_error envelope
//	Repeats   the repeated-failure guard answers a call that already failed
//	          unchanged, without running it
//	Redact    every text position of an error result is scrubbed on its
//	          way out
//	Render    a Go error, a handler's own error result or a missing result
//	          becomes the error result that carries an envelope
//	Pins      a call of a tool whose definition is not the one approved
//	          (core/pin) is refused
//	Seal      every requestState handed out is sealed and every echo
//	          opened (core/seal)
//	Hints     the tool's configured next steps join its failures (and
//	          successes); it refuses nothing
//	Limits    rate, concurrency and time bounds, in the order the user gives
//	          them (cheapest refusal first)
//	Declared  the arguments are checked against the tool's declared input
//	          schema
//
// Both fronts run Log (go-sdk), Recover, Repeats, Redact and Render in
// core/chain, which is written in this order and checks it against
// [Order] when it loads; they fill the stages from Pins on with layers
// and chain [Layers.Ordered]. The proxy runs its checks in [Admission]
// order. Recover is
// outside everything that can fail. Redact is outside Render so that it
// also sees error results a layer between them, or the handler, built by
// itself. Repeats is outside both, so that what it reads and quotes of a
// failure was redacted already.
//
// Limits come before the declared-schema check, on every consumer:
//   - a refused call costs no check: the check's cost grows with the
//     arguments the client chose, and a limit is what bounds the work a
//     flooding client can cause;
//   - a rate limit counts every call a client makes, valid or not, so an
//     agent looping on invalid arguments is throttled like any other, rather
//     than getting unlimited free answers;
//   - the repeated-failure guard comes first so that a call it answers
//     takes no token and no slot;
//   - the pins come next, before the limits and without the tool's hints:
//     a tool nobody approved gets no token, and none of the steps written
//     for it; the guard outside them counts their refusals as any other
//     access_denied, on every consumer;
//   - the hints sit outside the limits and the declared check, so that
//     their refusals carry the tool's steps as its handler's failures do
//     (a step written for the tool's validation_error is for every one of
//     them), and inside the repeated-failure guard, whose answer quotes
//     the last failure's steps, which carried them ([Stage.Hinted]).
//
// (A call of a tool the server does not have is answered before any
// stage, with a protocol error, where the consumer can tell: mcp-go and
// the proxy can; go-sdk looks the tool up inside its own handler.)
//
// # Outcome: one policy per outcome
//
// What a call ended as is an [Outcome]; [Decide] reads it off an [Answer]
// a consumer describes in plain booleans, and [Outcome.Policy] says what
// becomes of it: whether it is rendered as an envelope, counts as a
// failure, has a toolFailure _meta of the handler's own dropped (always:
// only the envelope layer writes one), is redacted, gets success hints,
// and how the per-call log record and span name it.
//
//	Outcome          envelope  failure  forged _meta  redacted        success hints  log
//	success          no        no       dropped       with successes  yes            success
//	input_required   no        no       dropped       with successes  no             input_required
//	task             no        no       dropped       with successes  no             success
//	error_result     yes       yes      dropped       yes             no             tool_error
//	missing          yes       yes      -             yes             no             tool_error
//	go_error         yes       yes      -             yes             no             tool_error
//	panic            yes       yes      -             yes             no             tool_error
//	refused          yes       yes      -             yes             no             tool_error
//	protocol_error   no        yes      -             message         no             protocol_error
//
// input_required (a multi round-trip result) and a task handle are not
// failures: no envelope, no error hint, and their own outcome.
//
// # One error result
//
// [BuildError] is the one builder of an error result's SDK-neutral shape:
// the envelope's JSON as the first text item, the envelope as structured
// content unless the tool declares an output schema (strict clients
// validate structured content against it even on errors), and the
// result's _meta without a toolFailure of the handler's own, plus the
// renderer's own toolFailure when it is configured to add one. The fronts
// turn an [ErrorShape] into their SDK's result type, the proxy into wire
// JSON. [JoinText] is the one joiner of a result's text items and
// [Outputs] the one memory of which tools declare an output schema,
// learned from tools/list.
//
// This package imports no MCP SDK.
package pipeline
