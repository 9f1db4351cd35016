package envelope_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// A code in an error result a handler built itself is read whatever its
// case and separators: every letter is folded, every other character but
// a digit reads as "_". A digit stays a digit, so it never turns a string
// into a code it does not spell.
func TestHandBuiltCodesAreFoldedLetterByLetter(t *testing.T) {
	t.Parallel()
	r := envelope.NewRenderer(envelope.WithLogger(discard()))
	for code, want := range map[string]envelope.Code{
		"UNAUTHORIZED":     envelope.AuthenticationFailed, // A and Z fold
		"unauthorized":     envelope.AuthenticationFailed, // a and z stay
		"Access-Denied":    envelope.AccessDenied,
		"NOTFOUND":         envelope.NotFound,
		"Validation.Error": envelope.ValidationError,
		"not0found":        envelope.ExecutionFailed, // not not_found
		"not9found":        envelope.ExecutionFailed,
		"not found":        envelope.NotFound,
	} {
		env, raw := text(t, r, `{"error":"`+code+`","message":"m"}`)
		assert.Equal(t, want, env.ErrorType, "%q: %s", code, raw)
		if want != envelope.ExecutionFailed {
			// The code was read, so the message is the object's own, not
			// the whole text the classifier would have read instead.
			assert.Equal(t, "m", env.Message, "%q: %s", code, raw)
		}
	}
}
