package leak_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/internal/leak"
)

// MayHoldSecretKey lets a reader skip arguments only when no member of
// them can name a secret: every name IsSecretKey accepts, however it is
// spelled in the JSON text, is found.
func TestMayHoldSecretKey(t *testing.T) { // not parallel: AllocsPerRun
	for _, k := range []string{"password", "DB_PASSWORD", "clientSecret", "x-api-key", "Key-Pair-Id", "session_id", "otp_code", "pin"} {
		for _, args := range []string{`{"` + k + `":"v"}`, `{"a":[{"` + k + `":1}]}`, `{"q":1,"` + strings.ToUpper(k) + `":true}`} {
			assert.True(t, leak.MayHoldSecretKey([]byte(args)), args)
		}
	}
	for _, args := range []string{
		`{"p\u0061ssword":"v"}`,                       // an escape spells it
		`{"paſſword":"v"}`,                            // U+017F folds to s under EqualFold
		`{"note":"` + strings.Repeat("x", 600) + `"}`, // past the scan's buffer: read
	} {
		assert.True(t, leak.MayHoldSecretKey([]byte(args)), args)
	}
	for _, args := range []string{``, `{}`, `{"order_id":"ORD-1","path":"/srv/shop","limit":10,"note":"rush\n"}`, `[1,2,"x"]`} {
		assert.False(t, leak.MayHoldSecretKey([]byte(args)), args)
	}
	b := []byte(`{"order_id":"ORD-1","path":"/srv/shop","limit":10}`)
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = leak.MayHoldSecretKey(b) }))
}

// FuzzMayHoldSecretKey: whatever a member is named, when IsSecretKey takes
// it for a secret's, MayHoldSecretKey of arguments holding it, encoded as
// encoding/json writes it, is true.
func FuzzMayHoldSecretKey(f *testing.F) {
	for _, k := range []string{"password", "api_key", "ſecret", "\xe3PASS", "Key-Pair-Id", "spin", "author"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if !leak.IsSecretKey(name) {
			return
		}
		for _, v := range []any{map[string]any{name: 1}, map[string]any{"a": []any{map[string]any{name: "x"}}}} {
			b, err := json.Marshal(v)
			if err != nil {
				t.Skip()
			}
			if !leak.MayHoldSecretKey(b) {
				t.Fatalf("IsSecretKey(%q), but MayHoldSecretKey(%s) is false", name, b)
			}
		}
	})
}

// The secrets a call sent are found in a text by their exact bytes, the
// longest first, within their bound.
func TestSentRedactsItsSecrets(t *testing.T) {
	t.Parallel()
	s := leak.NewSent(json.RawMessage(`{"password":"abc12345","password_confirmation":"abc12345-x","pin":123456,"tok":"abc12345"}`))
	assert.Equal(t, "got [R] and [R], 123 and [R]", s.RedactSecrets("got abc12345-x and abc12345, 123 and 123456", "[R]"))
	assert.Equal(t, "123456", s.SecretIn("xx123456"))
	assert.Empty(t, s.SecretIn("nothing"))
	assert.Equal(t, "abc12345-x", s.SecretIn("abc12345-x"), "the longest first")
	assert.True(t, s.Contains("abc12345"), "a string sent under a plain key is still kept")
	var none *leak.Sent
	assert.Equal(t, "abc12345", none.RedactSecrets("abc12345", "[R]"))
	many := map[string]any{}
	for i := range 100 {
		many["secret_"+strings.Repeat("k", i+1)] = "value-" + strings.Repeat("v", i)
	}
	big := leak.NewSent(many)
	found := 0
	for i := range 100 {
		if v := "value-" + strings.Repeat("v", i); big.SecretIn(v) == v {
			found++
		}
	}
	assert.True(t, found > 0 && found < 100, "a bounded number of secrets is remembered: %d", found)
}
