// Package limit bounds tool calls in time, rate and concurrency, and
// answers every call it stops with an envelope the agent can act on, never
// with a JSON-RPC error it would not see.
//
// # Guarantees
//
//   - [Timeout]: the handler's context carries a deadline; a call that
//     passes it is answered at the deadline, even when the handler ignores
//     its context, with execution_failed, retryable, and a next step that
//     says how to make the call cheaper.
//   - [Rate]: token buckets from golang.org/x/time/rate, keyed by principal,
//     session or one global key ([DefaultKey]), or your [KeyFunc]. A refused
//     call is execution_failed, retryable, with "retry_after_ms" and a next
//     step that says to wait that long. Memory is bounded however many keys
//     callers invent.
//   - [Concurrency]: at most n calls in flight; the rest wait up to a bound,
//     then are refused the same way.
//
// A refused call never reaches the handler. Each layer renders its own
// envelopes with [envelope.ErrorResult], so each is safe alone:
//
//	s.AddTool(tool, middleware.Wrap(h, limit.Timeout(5*time.Second)))
//
// # Place in the chain
//
// With [middleware.Default], pass them with middleware.WithLimits, which
// puts them inside the envelope layer and outside your own layers:
//
//	Logging → recover → redact → envelope → limits → [hints, validate, …] → handler
//
// recover is outside so that a handler's panic, which [Timeout] raises
// again in the caller's goroutine, still ends as an internal_error with an
// incident ID. Limits come before your layers so that a refused call costs
// as little as possible. Put the cheapest refusal first: Rate, then
// Concurrency, then Timeout.
//
// # Why
//
// The MCP specification says servers must rate-limit tool invocations.
// Limits answered with a JSON-RPC error (as hand-rolled ones often are, in
// code ranges the specification reserves) never reach the model, so the
// agent cannot know it should wait; and a slow tool without a timeout holds
// its caller until the client gives up.
package limit
