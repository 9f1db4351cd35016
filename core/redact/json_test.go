package redact_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/redact"
)

func TestJSONStaysJSON(t *testing.T) {
	t.Parallel()
	in := `{"b":1.50,"a":"dial postgres://u:pw@h/db","nested":[{"token":"abc","n":null,"ok":true}],"path":"/etc/shop/x.conf","e":[],"o":{}}`
	out, ok := redact.Default().JSON(in)
	require.True(t, ok)
	assert.Equal(t, `{"b":1.50,"a":"dial postgres://u:[REDACTED]@h/db","nested":[{"token":"[REDACTED]","n":null,"ok":true}],"path":"[path]","e":[],"o":{}}`, out,
		"key order, number text, empty containers and literals are kept")

	clean := `  {"a":[1,"x",false]}  `
	out, ok = redact.Default().JSON(clean)
	assert.True(t, ok)
	assert.Equal(t, clean, out, "clean JSON is returned as it was")
	out, ok = redact.Default().JSON(`{ "password_hint": "ask bob", "list": [1, 2] }`)
	assert.True(t, ok, "triggered but unchanged")
	assert.Equal(t, `{ "password_hint": "ask bob", "list": [1, 2] }`, out, "unchanged JSON keeps its spacing")
	assert.Equal(t, `{"/etc/x":1}`, must(redact.New().JSON(`{"/etc/x":1}`)), "a redactor without rules changes nothing")
	assert.Equal(t, `{"[path]":1}`, must(redact.Default().JSON(`{"/etc/x":1}`)), "keys are redacted too")
	var none *redact.Redactor
	assert.Equal(t, `{"/etc/x":1}`, must(none.JSON(`{"/etc/x":1}`)), "a nil redactor changes nothing")
	inactive := redact.New(redact.Rule{Name: "no pattern"}, redact.NewRule("x", "x", "y", "x"))
	assert.Equal(t, `["y"]`, must(inactive.JSON(`["x"]`)), "a rule without a pattern is skipped")
	assert.Equal(t, "y", inactive.String("x"))
}

func must(s string, ok bool) string {
	if !ok {
		return "not JSON"
	}
	return s
}

func TestJSONMasksSecretMembersOfAnyType(t *testing.T) {
	t.Parallel()
	in := `{"user":"bob","dbPassword":12345,"x-api-key":["a1",{"b":"b2"}],"credentials":{"u":"c3","deep":{"d":[1]}},"token":null,` +
		`"secret":true,"auth":false,"password":"","cookie":"[REDACTED]","token_count":7,"after":"/srv/x/y"}`
	out, ok := redact.Default().JSON(in)
	require.True(t, ok)
	assert.Equal(t, `{"user":"bob","dbPassword":"[REDACTED]","x-api-key":"[REDACTED]","credentials":"[REDACTED]","token":null,`+
		`"secret":true,"auth":false,"password":"","cookie":"[REDACTED]","token_count":7,"after":"[path]"}`, out,
		"a masked container is skipped whole and the members after it are still read")
}

func TestJSONRefusesWhatIsNotOneDocument(t *testing.T) {
	t.Parallel()
	for _, notJSON := range []string{"", "   ", "plain", `"just a string"`, "42", `{"unterminated":`, `{"a":1} trailing`, `{"a":1}{"b":2}`,
		`{"password":{"a":`, `{"password":[1,`, `{"password":`, `["/a/b",`, `["/a/b"`, `{"a":"password=x"`, `[1,2`, `{"a" 1}`, `{"token":"x"} ]`} {
		out, ok := redact.Default().JSON(notJSON)
		assert.False(t, ok, notJSON)
		assert.Equal(t, notJSON, out, "the input comes back when it is not JSON")
	}
}

func TestJSONDepthIsBounded(t *testing.T) {
	t.Parallel()
	for _, open := range []string{"[", `{"a":`} {
		closing := map[string]string{"[": "]", `{"a":`: "}"}[open]
		deep := strings.Repeat(open, 200) + `"password=hunter2"` + strings.Repeat(closing, 200)
		_, ok := redact.Default().JSON(deep)
		assert.False(t, ok, "deep nesting is not rewritten structurally")
		assert.NotContains(t, redact.Default().Text(deep), "hunter2", "it falls back to plain-text redaction")
	}
	// Just inside the bound: structural.
	fits := strings.Repeat("[", 128) + `"password=hunter2"` + strings.Repeat("]", 128)
	out, ok := redact.Default().JSON(fits)
	assert.True(t, ok)
	assert.True(t, json.Valid([]byte(out)))
	assert.NotContains(t, out, "hunter2")
	_, ok = redact.Default().JSON(strings.Repeat("[", 129) + `"password=hunter2"` + strings.Repeat("]", 129))
	assert.False(t, ok, "129 levels is one too many")
}

func TestTextRedactsJSONStructurallyAndTheRestAsText(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `{"msg":"open [path]","password":"[REDACTED]"}`, redact.Default().Text(`{"msg":"open /srv/x/y","password":"hunter2"}`))
	assert.Equal(t, `open [path]: {"password": "[REDACTED]"`, redact.Default().Text(`open /srv/x/y: {"password": hunter2`))
}

// Clean JSON, the common case of an error envelope, is checked without
// being decoded: no allocation.
func TestCleanJSONDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	clean := `{"error_type":"not_found","message":"No order ORD-1 exists.","next_steps":["List orders first."],"retryable":false}`
	assert.Equal(t, clean, redact.Default().Text(clean))
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = redact.Default().Text(clean) }))
}
