// Package redact keeps stack traces, file paths and secrets out of what an
// mcp-go client sees: [Middleware] redacts every position of a tool result
// (text content, resource links, embedded resources, _meta,
// structuredContent and RawStructuredContent) with [Result], and [Handler]
// does the same for a slog log shipped off-box.
//
// The rules, the secret-key matcher and the text, JSON and value redaction
// are SDK-neutral and live in github.com/mcpguard/mcpguard/core/redact; the
// names here ([Redactor], [Rule], [Default], [String], [IsSecretKey], …) are
// the same types and values. See that package for how redaction reads: a
// message stays readable, JSON stays valid, and what the agent itself sent
// is kept ([Redactor.ForCall]).
//
// # Where it sits
//
// [Middleware] sits outside the envelope layer, so that it sees every error
// result on its way out, including ones a handler built itself. Alone, it
// also redacts the text of a Go error the layers inside return, which
// mcp-go would send as a JSON-RPC error's message. It leaves
// successful results alone unless [WithRedactSuccesses] is given: they are
// the tool's intended output. The envelope layer also redacts its own
// messages, so each layer is safe alone.
package redact
