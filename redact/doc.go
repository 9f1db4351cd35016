// Package redact removes what a client must never see from the text it does
// see: stack traces and source positions, goroutine dumps, absolute file
// paths, passwords in URLs and DSNs, bearer tokens, JWTs, common API key
// shapes, PEM private keys, and password=/token=-style pairs.
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
// [DefaultRules] lists the rules. Each is a regular expression with
// fixed-text triggers; text that contains none of a rule's triggers skips
// its expression, so redacting an ordinary message is a few substring
// searches. Extend the defaults with [Redactor.With] or [WithRules]; a rule
// that does not compile panics when it is built, never at call time.
//
// # Where it sits
//
// [Middleware] sits outside the envelope layer, so that it sees every error
// result on its way out, including ones a handler built itself. It leaves
// successful results alone unless [WithSuccessResults] is given: they are
// the tool's intended output. The envelope layer also redacts its own
// messages, so each layer is safe alone.
package redact
