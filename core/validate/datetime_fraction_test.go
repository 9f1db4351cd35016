package validate_test

import (
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/core/validate"
)

// A date-time's fraction of a second is any digits, 0 and 9 included
// (the pattern's [0-9]+): such a time binds, on the fast path as on the
// slow one, and is refused only when it has no digit at all.
func TestDateTimeFractionsOfAnyDigits(t *testing.T) {
	t.Parallel()
	type args struct {
		When time.Time `json:"when"`
		N    int       `json:"n,omitempty"`
	}
	b := validate.NewBinder[args]()
	for in, want := range map[string]string{
		"2024-01-02T03:04:05.0Z":       "2024-01-02T03:04:05Z",
		"2024-01-02T03:04:05.05Z":      "2024-01-02T03:04:05.05Z",
		"2024-01-02T03:04:05.900Z":     "2024-01-02T03:04:05.9Z",
		"2024-01-02T03:04:05.09+01:00": "2024-01-02T03:04:05.09+01:00",
	} {
		if o := call(t, b, `{"when":"`+in+`"}`); !o.ok || o.args != `{"when":"`+want+`"}` {
			t.Errorf("%s: %+v", in, o)
		}
		// The slow path, taken for n, binds the time as well.
		env := invalid(t, call(t, b, `{"when":"`+in+`","n":"x"}`))
		if rules(env) != "n:type" {
			t.Errorf("%s on the slow path: %s", in, rules(env))
		}
	}
	env := invalid(t, call(t, b, `{"when":"2024-01-02T03:04:05.Z"}`))
	if f := field(t, env, "when"); f.Rule != "format" || f.Param != "date-time" {
		t.Errorf("no fraction digit: %+v", f)
	}
}
