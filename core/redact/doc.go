// Package redact removes what a client, or a log shipped off-box, must
// never see from the text it does see: stack traces and source positions
// of Go, Java, .NET, Python, JavaScript and Rust, goroutine dumps, absolute
// file paths, passwords in URLs and DSNs, the signatures and credentials
// of signed URLs, bearer tokens, JWTs, vendor API keys, long random tokens
// whatever their prefix, PEM private keys, and the value of every key that
// names a secret.
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
// Traces of other runtimes lose their frames and keep their message: a
// run of Java frames (with its "Caused by:" and "... 12 more" lines), of
// .NET frames, a Python traceback's frames and source lines, Node frames
// and a Rust backtrace each become "[stack trace redacted]", and a Rust
// file.rs:2:5 position "[internal]", so "ZeroDivisionError: division by
// zero" and "thread 'main' panicked at [internal]" still read.
//
// Paths are found in plain and in escaped text: C:\Users\bob\x,
// \\fileserver\share and their JSON-escaped forms all become "[path]". A
// backslash that starts a quoted escape (\x7f, \u0026, \U0001F600) is no
// separator, so a preview that quotes "\x7f&00" is left as it is in JSON
// text too, where it reads \\x7f\u002600.
//
// # Tokens
//
// A vendor token is found by its prefix (ghp_, glpat-, xoxb-, xapp-,
// sk_live_, whsec_, npm_, pypi-, SG., AIza, ya29., hf_, dop_v1_, shpat_,
// AKIA, …). A token whose prefix no rule knows is found by its shape: a
// run of 32 or more base64url characters, with a letter and a digit, at
// least 3.5 bits of entropy per character and under 45% of it in word-like
// runs. Hexadecimal runs are kept on purpose: UUIDs, commit SHAs, SHA-256
// digests and trace IDs are what an agent passes to the next call, and a
// hex secret is still caught by its key's name or its vendor's prefix.
// Long identifiers (shop_search_products_by_category_v2,
// TestHandlerRedactsWhatTheDefaultHandlerPrints) read as words and stay.
//
// # Keys that name a secret
//
// One matcher, [IsSecretKey], decides whether a name holds a credential:
// db_password, dbPassword, AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, x-api-key,
// authorization and so on, whatever the case style, prefix or suffix. Its
// value is masked whatever its type: in text pairs (KEY=v, key: v, JSON and
// Python dicts, NUL-separated environment dumps, URL query parameters), in
// JSON members, in logged arguments, in validation previews and in slog
// attributes. A signed URL's parameters are decided by their names too:
// X-Amz-Signature, X-Amz-Credential, X-Amz-Security-Token,
// X-Goog-Signature, X-Goog-Credential, Azure's sig, CloudFront's Signature
// and Key-Pair-Id are masked; expiry, date and version parameters (se, sv,
// X-Amz-Expires) stay.
//
// # Positions
//
// This package knows no MCP SDK. Each consumer reads every content item of
// a result into an [Item] (the mcp-go front from mcp-go's types, the gosdk
// module from go-sdk's, mcpguard-proxy from the wire's JSON) and
// [Redactor.Item] is the one walk of it: text items' and embedded
// resources' text with [Redactor.Text], links' and resources' URIs, names,
// titles and descriptions with [Redactor.String], each _meta with
// [Redactor.Value], an unknown kind's JSON; binary data (image and audio
// data, a resource's blob) is not in the view and reaches the client byte
// for byte. structuredContent and the result's _meta go through
// [Redactor.Value] (or [Redactor.RawJSON]). Nothing modifies its input,
// and nothing allocates when there is nothing to redact.
//
// # What the agent sent
//
// [Redactor.ForCall] narrows a redactor to one call: a path that appears
// verbatim in the call's own arguments is not a leak, since the client
// sent it, so a file tool's "open /home/alice/notes/todo.md: not found"
// keeps its path. So does the same path written back as a file URL, and a
// JSON Pointer to a value the arguments hold (/items/0/name). Only what the
// agent spelled out is kept, and only by the path rules: secrets stay
// redacted even when the client sent them, and so do the values of
// secret-named arguments. The SDK fronts' middlewares do this for every
// call.
//
// A JSON Pointer into a JSON Schema (/properties/entities, the location a
// validator names) is no file path and is never redacted; a path never
// ends inside a segment, and a secret-named key inside a path
// (/app/db_password=x/m.json) is a secret like any other.
//
// # Roots the agent may see
//
// [Redactor.KeepPathsUnder] keeps every path under a file server's roots,
// which the agent may see: the relative name it sent comes back in the
// form the server resolved it to. Give it on the chain's one redactor.
//
// # Logs
//
// [Handler] wraps a slog.Handler with the same rules. Choose per handler:
// a local log keeps full detail, a shipped log goes through [Handler]. It
// redacts what the wrapped handler prints, in each form a handler prints a
// value: slog.JSONHandler's JSON (which leaves out json:"-" fields),
// slog.TextHandler's and the default handler's MarshalText or %+v (which
// prints every struct field by name, json:"-" and unexported ones
// included), and %v for any other handler. A value that needs redacting
// reaches the wrapped handler with both forms redacted, so a JSON log keeps
// its structure and a text log its field names:
//
//	type login struct {
//		User   string
//		Secret string `json:"-"`
//	}
//	// TextHandler: cfg="{User:bob Secret:[REDACTED]}"
//	// JSONHandler: "cfg":{"User":"bob"}
//
// # Where it sits
//
// An SDK front's middleware sits outside the envelope layer, so that it sees every error
// result on its way out, including ones a handler built itself. It leaves
// successful results alone unless [WithRedactSuccesses] is given: they are
// the tool's intended output, and are then redacted with
// [Redactor.ForSuccess], which removes secrets, tokens and stack traces
// and keeps the paths, file URLs and source positions a file tool exists
// to return. The envelope layer also redacts its own messages, so each
// layer is safe alone.
//
// This is the SDK-neutral core of mcpguard's redaction; mcp-go servers use
// it through github.com/mcpguard/mcpguard/redact, whose names are the same
// values, and go-sdk servers through github.com/mcpguard/mcpguard/gosdk.
package redact
