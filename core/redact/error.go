package redact

import "github.com/mcpguard/mcpguard/internal/safe"

// Error returns err with its text redacted, for a client that reads the
// text as a JSON-RPC error's message: err itself when its text needs no
// redaction (or err is nil), else an error whose text is the redacted one
// and which wraps err, so that errors.Is and errors.As still find what it
// holds. An err whose Error method panics is shown by its type alone,
// and a text over 64 KiB is cut there (internal/safe).
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	text, whole := safe.ErrorText(err)
	red := r.String(text)
	if red == text && whole {
		return err
	}
	return &redactedError{text: red, err: err}
}

// redactedError is an error shown with its text redacted.
type redactedError struct {
	text string
	err  error
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.err }
