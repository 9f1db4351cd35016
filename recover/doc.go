// Package recover turns a panic anywhere in a tool call into an
// internal_error envelope, and keeps every detail of it on the server.
//
// # Why not server.WithRecovery
//
// mcp-go's WithRecovery turns a panic into a Go error whose message holds
// the panic value, which then goes out as a JSON-RPC error: the agent never
// sees a tool result, and whatever the panic value held (a DSN, a path, a
// user's data) is on the wire. This layer answers with a result the agent
// can act on and puts the value and the stack in the log instead, tied to
// an incident ID that the client does see:
//
//	{"success":false,"error_type":"internal_error","tool":"shop_query",
//	 "message":"The tool failed with an internal error. ... Incident ID: inc_3f9a0c1d2e4b5a69.",
//	 "next_steps":["Retry the call once; if it fails again, report incident inc_3f9a0c1d2e4b5a69 ..."],
//	 "retryable":true,"incident_id":"inc_3f9a0c1d2e4b5a69"}
//
// # Every panic
//
// Strings, errors, runtime errors, values of any type (including ones whose
// String or Error method panics in turn) and panic(nil) all end the same
// way. A logger or [WithOnPanic] callback that panics while the panic is
// being handled is contained too.
//
// # A result the SDK cannot encode
//
// mcp-go encodes a result after every middleware has returned, outside any
// recover: a structuredContent whose MarshalJSON panics would end the
// process (and print the panic value to stderr), and one whose encoding
// fails (a NaN, invalid json.RawMessage, a MarshalJSON error) would leave
// the call unanswered. The layer encodes every value whose encoding could
// run the handler's code or fail, once, while it can still recover:
// structuredContent into RawStructuredContent, which mcp-go then sends
// as it is (the typed value stays in StructuredContent for layers outside
// to read; a layer outside that replaces it must clear
// RawStructuredContent), and values in the result's and content items'
// _meta, embedded resources' _meta and content types of the handler's own
// as json.RawMessage. A panic there is recovered like any other; an
// encoding error is an internal_error with an incident ID, the error only
// in the log. Values encoding/json encodes by reflection alone (text,
// numbers, decoded JSON, valid raw JSON, structs of plain fields with
// finite floats) are left to the SDK: a result holding only those costs
// no copy and no allocation.
//
// # Where it sits
//
// Outermost but for logging, as middleware.Default puts it, so that a panic
// in any layer inside it or in a callback those layers run is caught.
// One panic is out of its reach: a middleware whose constructor panics while
// mcp-go assembles the chain, which happens before any handler runs.
//
// Importing it shadows the builtin recover in that file; import it as
// mcprecover if that matters to you.
package recover
