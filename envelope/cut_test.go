package envelope_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// A secret whose shape has a fixed length (a GitHub token is ghp_ and 36
// characters) is only recognised whole. Cut first and redact second, and a
// token straddling the cut leaves a prefix no rule matches on the wire.
func TestTokenStraddlingTheCutLeavesNoPrefix(t *testing.T) {
	t.Parallel()
	token := "ghp_" + strings.Repeat("A1b2C3d4E5", 4)[:36]
	for _, before := range []int{4, 8, 12, 20, 30, 39} {
		// Words before the token, which starts a word of its own, so
		// nothing in front of it is redacted and it ends `before` bytes
		// into the token.
		pad := strings.Repeat("word ", envelope.MaxMessageBytes/5)[:envelope.MaxMessageBytes-before-1] + " "
		msg := pad + token + " is invalid"
		srv := middlewaretest.New(t, plainTool, plainFailing(envelope.New(envelope.ExecutionFailed, msg)), middleware.Default()...)
		r := srv.Call(nil).ExpectError(envelope.ExecutionFailed).NoLeak(token[:min(before, 12)])
		assert.NotContains(t, r.Envelope.Message, token[:4], "cut %d bytes into the token", before)
	}
}

func TestMessageOfExactlyTheBoundIsNotCut(t *testing.T) {
	t.Parallel()
	msg := strings.Repeat("x", envelope.MaxMessageBytes)
	env := expect(t, serve(t, failing(envelope.New(envelope.ExecutionFailed, msg))).Call(nil), envelope.ExecutionFailed)
	assert.Equal(t, msg, env.Message)
}

func TestCutNeverSplitsACharacter(t *testing.T) {
	t.Parallel()
	// One ASCII byte first, so byte 2048 falls inside a two-byte é.
	msg := "x" + strings.Repeat("é", envelope.MaxMessageBytes)
	env := expect(t, serve(t, failing(envelope.New(envelope.ExecutionFailed, msg))).Call(nil), envelope.ExecutionFailed)
	assert.True(t, utf8.ValidString(env.Message))
	assert.Equal(t, "x"+strings.Repeat("é", envelope.MaxMessageBytes/2-1)+" …(truncated)", env.Message)
}

func TestCutOfBytesThatStartNoCharacter(t *testing.T) {
	t.Parallel()
	r := serve(t, failing(envelope.New(envelope.ExecutionFailed, strings.Repeat("\x80", 3*envelope.MaxMessageBytes)))).Call(nil)
	env := expect(t, r, envelope.ExecutionFailed)
	assert.LessOrEqual(t, len(env.Message), envelope.MaxMessageBytes+len(" …(truncated)"))
}
