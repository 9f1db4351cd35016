package redact

import (
	"encoding/json"
	"sync"

	"github.com/mcpguard/mcpguard/internal/leak"
)

// ForCall returns a Redactor for the results of one call: rules marked
// [Rule.KeepSent] (the path rules, by default) leave alone what appears
// verbatim in the call's own arguments, since the client sent it. A file
// tool's "open /home/alice/notes/todo.md: not found" keeps the path the
// agent asked for, and still loses any path it did not send. Secrets are
// redacted even when the client sent them: a token in an argument must not
// come back in an error a host may log. Values of secret-named argument
// keys are never kept: the rule [SentSecretsRule] redacts them wherever
// they come back, whatever their shape.
//
// args is what the request carries: req.GetRawArguments() (json.RawMessage
// on the wire), a map[string]any, or any value that encodes as JSON. Only
// the first 256 strings and 64 KiB are remembered. ForCall returns r itself
// when there are no arguments (or r reads nothing sent), so such calls
// cost nothing. The arguments are read, once, only when a rule that keeps
// what was sent finds a match, or when their text may name a secret (one
// scan of it, leak.MayHoldSecretKey), so a call whose error holds no path,
// with arguments that name no secret, pays one small allocation.
func (r *Redactor) ForCall(args any) *Redactor {
	if r == nil || args == nil || !r.usesCall() {
		return r
	}
	if raw, ok := args.(json.RawMessage); ok && len(raw) == 0 {
		return r
	}
	fc := &forCall{r: Redactor{rules: r.rules, roots: r.roots}, c: call{args: args}}
	if raw, ok := args.(json.RawMessage); ok {
		fc.c.noSecrets = !leak.MayHoldSecretKey(raw)
	}
	fc.r.call = &fc.c
	return &fc.r
}

// forCall is a Redactor and its call in one allocation.
type forCall struct {
	r Redactor
	c call
}

// call holds a call's arguments and, once a rule needs them, their strings.
type call struct {
	args any
	// noSecrets: the arguments' text names no secret (leak.MayHoldSecretKey),
	// so the rule of the secrets sent need not read them.
	noSecrets bool
	once      sync.Once
	s         *leak.Sent
}

func (c *call) sent() *leak.Sent {
	c.once.Do(func() { c.s = leak.NewSent(c.args) })
	return c.s
}

// usesCall reports whether a rule of r reads the call's arguments: one
// that keeps what was sent, or the rule of the secrets sent.
func (r *Redactor) usesCall() bool {
	for i := range r.rules {
		if r.rules[i].KeepSent || r.rules[i].sent {
			return true
		}
	}
	return false
}

// redactSecrets is leak.Sent's RedactSecrets for the call's secrets; a
// nil call (a Redactor outside a call) has none.
func (c *call) redactSecrets(s, replacement string) string {
	if c == nil || c.noSecrets {
		return s
	}
	return c.sent().RedactSecrets(s, replacement)
}

// hasSecretIn reports whether redactSecrets would change s.
func (c *call) hasSecretIn(s string) bool {
	return c != nil && !c.noSecrets && c.sent().SecretIn(s) != ""
}
