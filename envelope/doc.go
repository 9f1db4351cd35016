// Package envelope gives every tool failure of an mcp-go server one
// machine-readable shape, so that an agent can branch on what went wrong
// and knows what to do next.
//
// An mcp-go handler that returns (nil, err) produces a JSON-RPC error. Hosts
// treat that as a transport fault and the model never sees it, so the agent
// stalls. [Middleware] answers every failure with a result instead:
//
//	{
//	  "isError": true,
//	  "content": [{"type": "text", "text": "<the envelope as JSON>"}],
//	  "structuredContent": <the envelope>   // omitted if the tool declares an outputSchema
//	}
//
// The envelope has success (false), error_type (one of seven codes),
// tool, message (redacted), next_steps, retryable, incident_id (internal
// errors), fields (validation errors) and retry_after_ms (when known).
//
// The codes, sentinels, constructors, classification and rendering are the
// SDK-neutral core's (github.com/mcpguard/mcpguard/core/envelope, whose
// documentation describes the taxonomy and the classification order); this
// package exports them under the same names and values and adds what is
// about mcp-go: [Middleware], [Renderer] with its per-server registry
// ([RendererFrom]), [ErrorResult], [FromResult] and the request type of
// [StepsFunc].
//
// # What a handler relays is not the server's word
//
// A handler that passes on an upstream service's result passes on what
// that service wrote. An envelope in an error result's text keeps its code,
// message and fields, redacted; its fields are capped as this server's
// own are ([MaxFieldErrors], then one "more" entry counting the rest),
// each string bounded; its next_steps and retryable are replaced by this
// layer's unless [WithTrustedEnvelopes]. A toolFailure _meta
// ([ToolFailureMetaKey]) in any result the handler built, failure or
// success, normalized or not, is dropped: with [WithToolFailureMeta] the
// layer adds its own, derived from its envelope, and otherwise none, so
// that an agent never reads an upstream's agentGuidance, retryable or
// correlationId beside an envelope that says otherwise. (On a success it
// has no meaning at all: the draft proposal describes failures.)
//
// # Tests that call a handler directly
//
// A handler that returns Go errors gives (nil, err) to a test that calls
// it directly. To get what a client would receive, with the chain's own
// options, run it through the same chain:
// middleware.Wrap(h, middleware.Default(opts...)...)(ctx, req), then
// [FromResult]. [ErrorResult] alone, outside a server and without options,
// knows none of the chain's mappings.
//
// # Where it sits
//
// Inside recover and redact, outside the tool-specific layers:
// middleware.Default puts it there. It is also safe alone, for adopting it
// one tool at a time.
package envelope
