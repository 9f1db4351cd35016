// Package calllog writes the one record per tool call that each SDK front's
// logging layer writes (middleware.Logging on mcp-go, gosdk.WithLogger on
// go-sdk), so that the record of a call is the same on both fronts: the
// same message ([Message]), the same attribute keys, the same levels and
// the same outcome classification.
//
// The front reads its SDK's answer into a [Call]: the tool's name, how long
// the call took, whether the client received a JSON-RPC error, a success or
// a tool error (with the envelope it carried, if any), and the call's raw
// arguments. [Logger.Record] decides the rest:
//
//	outcome         level                              attributes
//	success         Info (WithLevels)                  tool, duration, outcome
//	tool_error      Warn (WithLevels); Error for an    … error_type, incident_id
//	                internal_error envelope
//	protocol_error  Error                              … error
//
// A call a rate or concurrency limit held (a client of MCP 2026-07-28,
// core/limit's Absorb) also carries admission, what the limit made of
// it ("held": it ran after the hold; "refused": answered with its
// refusal after the hold; "shed"), and held_ms, the milliseconds it was
// held; a call admitted at once, or refused at once, carries neither.
// The front's logging layer puts a [Note] in the call's context before
// the limits run ([Logger.Noting]), the limit notes on it, and the record
// reads it ([Call].Note): the front decides nothing of it.
//
// With [WithArguments] each record also carries the arguments, rendered
// from their JSON with the value of every key that names a secret masked
// whatever its type, and secret-shaped values and paths redacted with the
// default rules ([redact.Redactor.Text]). A log handler that panics cannot
// fail the call: the record is written under a recover.
//
// The package imports no MCP SDK.
package calllog
