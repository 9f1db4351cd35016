package middlewaretest

import "github.com/mcpguard/mcpguard/core/wiretest"

// Leaks lists what raw, a response as sent on the wire, gives away: a Go
// stack trace or goroutine dump, a file.go:123 position, a panic or runtime
// error, an absolute file path, a secret shape (a key, a token, a password
// in a URL, the value of a secret-named key), or any of secrets. Empty
// secrets are ignored. It returns nil when nothing leaks.
//
// The patterns are the ones the redact package removes, from the one list
// mcpguard keeps, so "redacted" and "not a leak" agree. JSON is decoded
// first, strings inside strings included (an envelope's text is JSON in a
// JSON string), so a secret with a quote or a backslash is found however
// often it was escaped on the way. Image and audio data and resource blobs
// are binary and not searched for patterns.
//
// Use it on bytes from any client; [Result.NoLeak] applies it to a call.
func Leaks(raw []byte, secrets ...string) []string { return wiretest.Leaks(raw, nil, secrets) }
