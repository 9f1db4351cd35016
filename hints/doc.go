// Package hints adds per-tool, context-aware next steps to what an agent
// receives: on failures, in the envelope's next_steps; on successes, as a
// last text item and under a _meta key. Handlers stay plain.
//
// # Why
//
// An error envelope is worth what its next_steps are worth. "Invalid
// session token" leaves an agent stuck; "Call shop_authenticate with your
// API key, then retry." lets it recover without bothering the user.
// Successes benefit the same way: an execute_query that returned nothing
// should point at get_schema, one that returned a page should name the
// next page. Written inside handlers, this guidance is scattered and
// usually missing. Here it is declared once per tool:
//
//	s.Use(middleware.Default()...)
//	s.Use(hints.Middleware(
//		hints.For("shop_order",
//			hints.OnErrorIs(ErrSessionExpired, hints.Call("shop_authenticate", "with your API key, then retry")),
//			hints.OnError(envelope.NotFound, hints.Call("shop_search", "to find the order's ID")),
//			hints.OnSuccess(hints.Call("shop_track", "to follow the delivery")),
//		),
//	))
//
// # What it guarantees
//
//   - On a failure, the tool's hints come first in next_steps, then the
//     error's own steps ([envelope.AddNextSteps]), then the code's
//     defaults, de-duplicated. [ReplaceDefaults] drops the defaults where a
//     hint applies. [OnErrorIs] (a sentinel, through errors.Is) is more
//     specific than [OnError] (a code): when one matches, the code's hints
//     are skipped. Codes are those the agent receives, after the envelope
//     layer's mappings.
//   - On a success, the result is copied, never changed in place: the steps
//     are appended as a last text content item, which the model reads, and
//     set under [MetaKey] in _meta, which programs read. structuredContent
//     is untouched, so a tool's output schema stays satisfied.
//   - A call of a tool without a rule, and a result no hint applies to, pass
//     through untouched and without allocating.
//   - Hint functions get the request's context. One that panics is
//     recovered and logged with the tool's name; the result goes out without
//     its steps. Returning nothing is fine. Every hint's text goes through
//     redact, is trimmed and bounded (32 steps of 2,000 bytes per call).
//   - [Call] records the tool a step names, and [Check] reports every hint
//     that names a tool the server does not have, and every rule for a tool
//     it does not have. Without Check, the layer makes the same check at
//     the first call of a tool with a rule, logs each problem once as a
//     warning, and never sends a step naming a tool the server does not
//     have (a typo the agent would loop on).
//
// # Where it sits in the chain
//
// Anywhere relative to the envelope layer (middleware.Default); both orders
// are tested on the wire. Inside it, the natural order above, a Go error
// from the handler leaves this layer carrying an [envelope.StepsFunc] that
// the envelope layer calls once it has classified the error. Outside it,
// this layer installs the same function in the call's context
// ([envelope.ContextWithStepsFunc]), where the envelope layer finds it. In
// both orders the hints see the handler's Go error and the code the agent
// gets, so sentinel-keyed and mapped-code hints work either way.
//
// A failure that reaches this layer as a result with isError: true (a
// handler's mcp.NewToolResultError, or an envelope no layer gave the hints
// to) is rendered as an envelope with the tool's steps first. Such a result
// carries no Go error, so only [envelope]'s own sentinels, which stand for a
// code, can match it; the layer logs a warning, once per tool, when a
// sentinel hint of the tool's own could not be evaluated, so that it is
// never silently ineffective.
//
// Given to middleware.Default with middleware.WithHints instead, the
// layer sits where core/pipeline's admission order puts the hints stage on
// every consumer: outside the limits and the declared-schema check, so
// that their refusals carry the tool's steps too.
//
// Without any envelope layer, a Go error passes through unchanged and
// mcp-go answers it as a JSON-RPC error, as it would without hints: keep
// middleware.Default in the chain.
package hints
