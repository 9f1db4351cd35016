package redact

import "github.com/mcpguard/mcpguard/internal/leak"

// ForCall returns a Redactor for the results of one call: rules marked
// [Rule.KeepSent] (the path rules, by default) leave alone what appears
// verbatim in the call's own arguments, since the client sent it. A file
// tool's "open /home/alice/notes/todo.md: not found" keeps the path the
// agent asked for, and still loses any path it did not send. Secrets are
// redacted even when the client sent them: a token in an argument must not
// come back in an error a host may log. Values of secret-named argument
// keys are never remembered.
//
// args is what the request carries: req.GetRawArguments() (json.RawMessage
// on the wire), a map[string]any, or any value that encodes as JSON. Only
// the first 256 strings and 64 KiB are remembered. ForCall returns r itself
// when there is nothing to keep, so it costs nothing on calls without
// arguments.
func (r *Redactor) ForCall(args any) *Redactor {
	if r == nil || args == nil || !r.keepsSent() {
		return r
	}
	s := leak.NewSent(args)
	if s == nil {
		return r
	}
	return &Redactor{rules: r.rules, sent: s}
}

func (r *Redactor) keepsSent() bool {
	for i := range r.rules {
		if r.rules[i].KeepSent {
			return true
		}
	}
	return false
}
