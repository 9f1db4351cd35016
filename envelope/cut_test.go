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
	// Two ASCII bytes first, so the cut, 2048 bytes less the mark's 15,
	// falls inside a two-byte é.
	const mark = " …(truncated)"
	msg := "xx" + strings.Repeat("é", envelope.MaxMessageBytes)
	env := expect(t, serve(t, failing(envelope.New(envelope.ExecutionFailed, msg))).Call(nil), envelope.ExecutionFailed)
	assert.True(t, utf8.ValidString(env.Message))
	assert.Equal(t, "xx"+strings.Repeat("é", (envelope.MaxMessageBytes-len(mark)-2)/2)+mark, env.Message)
}

func TestCutOfBytesThatStartNoCharacter(t *testing.T) {
	t.Parallel()
	r := serve(t, failing(envelope.New(envelope.ExecutionFailed, strings.Repeat("\x80", 3*envelope.MaxMessageBytes)))).Call(nil)
	env := expect(t, r, envelope.ExecutionFailed)
	assert.LessOrEqual(t, len(env.Message), envelope.MaxMessageBytes)
}

// TestMessageNeverExceedsTheBoundOnTheWire: a message of every length
// around MaxMessageBytes, of characters one to four bytes long, reaches
// the client at most MaxMessageBytes long, its mark of a cut included (it
// reached 2,063 bytes: the mark was not counted), valid UTF-8, and either
// whole or a prefix of whole characters followed by the mark.
func TestMessageNeverExceedsTheBoundOnTheWire(t *testing.T) {
	t.Parallel()
	const mark = " …(truncated)"
	for _, char := range []string{"x", "é", "€", "😀"} {
		for n := envelope.MaxMessageBytes - 2*len(mark); n <= envelope.MaxMessageBytes+2*len(mark); n++ {
			// n bytes: ASCII up to the last whole character, so that every
			// cut position meets a character of this width.
			msg := strings.Repeat("a", n%len(char)) + strings.Repeat(char, n/len(char))
			got := expect(t, serve(t, failing(envelope.New(envelope.ExecutionFailed, msg))).Call(nil), envelope.ExecutionFailed).Message
			if len(got) > envelope.MaxMessageBytes || !utf8.ValidString(got) {
				t.Fatalf("%d bytes of %q: %d bytes on the wire, valid UTF-8 %v", n, char, len(got), utf8.ValidString(got))
			}
			if len(msg) <= envelope.MaxMessageBytes {
				assert.Equal(t, msg, got, "%d bytes of %q are not cut", n, char)
				continue
			}
			kept, ok := strings.CutSuffix(got, mark)
			if !ok || !strings.HasPrefix(msg, kept) || len(kept) < envelope.MaxMessageBytes-len(mark)-3 {
				t.Fatalf("%d bytes of %q: cut to %d bytes, %q…", n, char, len(got), got[len(got)-20:])
			}
		}
	}
}
