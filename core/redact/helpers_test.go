package redact_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/internal/leak"
)

// ruleCase is one text through the default rules: none of secret may
// survive, all of keep must. The leak detector must agree: it flags the
// input when there is a secret, finds nothing the redactor removes in the
// output, and flags nothing in a text that holds no secret.
type ruleCase struct {
	name   string
	in     string
	secret []string
	keep   []string
}

func (tc ruleCase) check(t *testing.T) {
	t.Helper()
	t.Run(tc.name, func(t *testing.T) {
		t.Parallel()
		out := redact.String(tc.in)
		for _, s := range tc.secret {
			assert.NotContains(t, out, s, "in %q", tc.in)
		}
		for _, k := range tc.keep {
			assert.Contains(t, out, k, "redaction keeps the message readable")
		}
		assert.Equal(t, out, redact.String(out), "redaction is idempotent")
		if len(tc.secret) > 0 {
			assert.NotEmpty(t, rewritten(tc.in), "the detector flags %q", tc.in)
		} else {
			assert.Equal(t, tc.in, out, "nothing to redact")
			assert.Empty(t, leak.Find(tc.in), "the detector flags nothing in %q", tc.in)
		}
		assert.Empty(t, rewritten(out), "the detector agrees with the redactor on %q", out)
	})
}

// rewritten lists the leaks in text of the kinds the redactor removes.
func rewritten(text string) []leak.Match {
	detectOnly := map[string]bool{}
	for _, s := range leak.Specs {
		detectOnly[s.Name] = s.DetectOnly
	}
	var out []leak.Match
	for _, m := range leak.Find(text) {
		if !detectOnly[m.Name] {
			out = append(out, m)
		}
	}
	return out
}
