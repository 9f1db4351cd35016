// Package redact removes what a client, or a log shipped off-box, must
// never see from the text it does see: stack traces and source positions,
// goroutine dumps, absolute file paths, passwords in URLs and DSNs, bearer
// tokens, JWTs, common API key shapes, PEM private keys, and the value of
// every key that names a secret.
//
// # Readable, not blank
//
// Redaction replaces the secret, not the message. An agent still reads
// `pq: relation "users" does not exist` and fixes its SQL, and
// `dial postgres://app:[REDACTED]@db:5432` still says which host failed.
// JSON is redacted string by string, so an envelope stays a valid envelope.
//
// # Rules
//
// [DefaultRules] lists the rules, named "category/kind" (stack/…,
// secrets/…, paths/…). They are built from mcpguard's one list of leak
// kinds, which middlewaretest.Leaks also detects with, so what the redactor
// removes and what the test harness flags cannot drift apart. Each rule is
// a regular expression with fixed-text triggers; text that contains none of
// a rule's triggers skips its expression, so redacting an ordinary message
// is a few substring searches and no allocation. Extend the defaults with
// [Redactor.With] or [WithRules], drop rules by name or category with
// [Redactor.Without] or [WithoutRules]; a rule that does not compile panics
// when it is built, never at call time.
//
// # Keys that name a secret
//
// One matcher, [IsSecretKey], decides whether a name holds a credential:
// db_password, dbPassword, AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, x-api-key,
// authorization and so on, whatever the case style, prefix or suffix. Its
// value is masked whatever its type: in text pairs (KEY=v, key: v, JSON and
// Python dicts, NUL-separated environment dumps), in JSON members, in
// logged arguments, in validation previews and in slog attributes.
//
// # Positions
//
// This package knows no MCP SDK. Each SDK front walks its own result type
// (github.com/mcpguard/mcpguard/redact.Result for mcp-go, the gosdk module
// for the official go-sdk) and redacts each position with [Redactor.String],
// [Redactor.Value] (structuredContent, _meta) and [Redactor.RawJSON]: text
// content, resource links, embedded resources, resource URIs, _meta and
// structured content. Neither modifies its input, and neither allocates
// when there is nothing to redact.
//
// # What the agent sent
//
// [Redactor.ForCall] narrows a redactor to one call: a path that appears
// verbatim in the call's own arguments is not a leak, since the client
// sent it, so a file tool's "open /home/alice/notes/todo.md: not found"
// keeps its path. Secrets stay redacted even when the client sent them.
// The SDK fronts' middlewares do this for every call.
//
// # Logs
//
// [Handler] wraps a slog.Handler with the same rules. Choose per handler:
// a local log keeps full detail, a shipped log goes through [Handler].
//
// # Where it sits
//
// An SDK front's middleware sits outside the envelope layer, so that it sees every error
// result on its way out, including ones a handler built itself. It leaves
// successful results alone unless [WithSuccessResults] is given: they are
// the tool's intended output. The envelope layer also redacts its own
// messages, so each layer is safe alone.
//
// This is the SDK-neutral core of mcpguard's redaction; mcp-go servers use
// it through github.com/mcpguard/mcpguard/redact, whose names are the same
// values, and go-sdk servers through github.com/mcpguard/mcpguard/gosdk.
package redact
