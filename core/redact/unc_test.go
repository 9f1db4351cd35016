package redact_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/core/redact"
)

// A quoted escape is no network path (FuzzDefaultArgs: the preview of
// "A\xb6\xff\x7f&00" in an envelope's JSON text read as \\x7f\u002600),
// and the redactor leaves it as the detector does; real network paths,
// plain or JSON-escaped, still go.
func TestUNCPathsAndQuotedEscapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []ruleCase{
		{"the finding", `(got \"A` + "\uFFFD\uFFFD" + `\\x7f\u002600\")`, nil, nil},
		{"a quoted byte as server", `got " \\x7f\share"`, nil, nil},
		{"a JSON escape as share", `got " \\\\B\u0026"`, nil, nil},
		{"a Go escape as share", `got \\srv\U0001F600`, nil, nil},
		{"UNC", `open \\fileserver\share\x failed`, []string{"fileserver", `share\x`}, []string{"open", "failed"}},
		{"JSON-escaped UNC", `{"p":"\\\\fileserver\\share"}`, []string{"fileserver", "share"}, []string{`{"p":"`}},
		{"JSON-escaped non-ASCII server", `{"p":"\\\\\u00e9cole\\share"}`, []string{"u00e9cole", "share"}, nil},
		{"escape after the share", `open \\fileserver\share\u0026 failed`, []string{"fileserver"}, []string{"failed"}},
		{"a printable byte is a name", `open \\x64build\share failed`, []string{"x64build"}, []string{"failed"}},
	} {
		tc.check(t)
	}
}

// ForCall vets matches the same way on its own path through the rules.
func TestForCallLeavesQuotedEscapes(t *testing.T) {
	t.Parallel()
	r := redact.Default().ForCall(json.RawMessage(`{"path":"\\\\fileserver\\share"}`))
	assert.Equal(t, `got " \\x7f\share"`, r.String(`got " \\x7f\share"`))
	assert.Equal(t, `open \\fileserver\share`, r.String(`open \\fileserver\share`), "sent, so kept")
	assert.Equal(t, `open [path]`, r.String(`open \\other\share`))
}
