package redact_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/redact"
)

func TestValueRedactsStringsAndSecretMembers(t *testing.T) {
	t.Parallel()
	in := map[string]any{
		"detail": "dial postgres://u:pw@h/db",
		"list":   []any{"ok", "open /srv/x/y", 1.5, nil, true},
		"nested": map[string]any{"password": "hunter2", "n": json.Number("7"), "api_key": 42, "token": nil, "secret": false},
		"/etc/x": "a path as a key",
		"empty":  map[string]any{"password": ""},
		"keys":   map[string]any{"private_key": map[string]any{"k": "v"}, "api_keys": []any{"a"}, "tokens": []any{}, "secrets": map[string]any{}, "passwords": []any{}},
		"raw":    json.RawMessage(`{"password":"x"}`),
		"rawkey": map[string]any{"secret": json.RawMessage(`"x"`)},
		"typed":  map[string]any{"cvv": int64(123), "pin": float32(1), "otp": uint(2)},
		"struct": struct{ Password string }{"hunter2"},
		"clean":  struct{ Name string }{"bob"},
		"secretstruct": map[string]any{
			"credentials": struct{ User string }{"u"},
		},
	}
	before, _ := json.Marshal(in)
	out, changed := redact.Default().Value(in)
	require.True(t, changed)
	after, _ := json.Marshal(in)
	assert.JSONEq(t, string(before), string(after), "the input is never modified")
	b, err := json.Marshal(out)
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"detail": "dial postgres://u:[REDACTED]@h/db",
		"list": ["ok", "open [path]", 1.5, null, true],
		"nested": {"password": "[REDACTED]", "n": 7, "api_key": "[REDACTED]", "token": null, "secret": false},
		"[path]": "a path as a key",
		"empty": {"password": ""},
		"keys": {"private_key": "[REDACTED]", "api_keys": "[REDACTED]", "tokens": [], "secrets": {}, "passwords": []},
		"raw": {"password": "[REDACTED]"},
		"rawkey": {"secret": "[REDACTED]"},
		"typed": {"cvv": "[REDACTED]", "pin": "[REDACTED]", "otp": "[REDACTED]"},
		"struct": {"Password": "[REDACTED]"},
		"clean": {"Name": "bob"},
		"secretstruct": {"credentials": "[REDACTED]"}
	}`, string(b))
}

func TestValueReturnsCleanDataItself(t *testing.T) {
	clean := map[string]any{"a": "b", "l": []any{"c", 1.0, map[string]any{"d": nil}}, "s": struct{ N int }{1}, "r": json.RawMessage(`{"x":1}`),
		"placeholder": map[string]any{"password": "[REDACTED]"}}
	out, changed := redact.Default().Value(clean)
	assert.False(t, changed)
	assert.Equal(t, clean, out)
	for _, v := range []any{nil, "text", 1.0, true, []any{}, map[string]any{}, make(chan int)} {
		out, changed := redact.Default().Value(v)
		assert.False(t, changed)
		if _, isChan := v.(chan int); !isChan {
			assert.Equal(t, v, out)
		}
	}
	if !raceEnabled {
		small := map[string]any{"a": "b", "l": []any{"c", 1.0}}
		assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = redact.Default().Value(small) }))
	}
}

func TestValueDepthIsBounded(t *testing.T) {
	t.Parallel()
	var v any = "clean"
	for range 200 {
		v = []any{v}
	}
	out, changed := redact.Default().Value(v)
	assert.True(t, changed, "too deep to check is too deep to send")
	b, _ := json.Marshal(out)
	assert.Contains(t, string(b), redact.Placeholder)

	var fits any = "clean"
	for range 128 {
		fits = []any{fits}
	}
	_, changed = redact.Default().Value(fits)
	assert.False(t, changed, "128 levels fit")

	// Objects count their levels the same way.
	nest := func(levels int) any {
		var v any = "clean"
		for range levels {
			v = map[string]any{"k": v}
		}
		return v
	}
	_, changed = redact.Default().Value(nest(128))
	assert.False(t, changed, "128 levels of objects fit")
	_, changed = redact.Default().Value(nest(129))
	assert.True(t, changed, "129 do not")
}

func TestRawJSON(t *testing.T) {
	t.Parallel()
	r := redact.Default()
	for in, want := range map[string]string{
		`{"password":"x","n":1.50}`: `{"password":"[REDACTED]","n":1.50}`,
		`"open /srv/x/y"`:           `"open [path]"`,
		`"clean"`:                   `"clean"`,
		`12`:                        `12`,
		`not json`:                  `not json`,
		``:                          ``,
	} {
		out, changed := r.RawJSON(json.RawMessage(in))
		assert.Equal(t, want, string(out), in)
		assert.Equal(t, want != in, changed, in)
	}
}

func TestItemsCopiesOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	upper := func(s string) (string, bool) {
		if s == "x" {
			return "X", true
		}
		return s, false
	}
	items := []string{"a", "x", "b", "x"}
	assert.Equal(t, []string{"a", "X", "b", "X"}, redact.Items(items, upper))
	assert.Equal(t, []string{"a", "x", "b", "x"}, items, "the input is never modified")
	assert.Nil(t, redact.Items([]string{"a", "b"}, upper), "nil when nothing changed")
	assert.Nil(t, redact.Items(nil, upper))
}
