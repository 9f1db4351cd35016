package validate_test

import (
	"testing"

	"github.com/mcpguard/mcpguard/core/validate"
)

// Arguments that are a number are named a number whatever digit they
// start with, 0 and 9 included; the bytes either side of the digits are
// no JSON at all.
func TestTopLevelNumbersAreNamedNumbers(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[SearchArgs]()
	for args, kind := range map[string]string{
		`0`: "a number", `9`: "a number", `09`: "a number", `/`: "valid JSON", `:`: "valid JSON",
	} {
		env := invalid(t, call(t, b, args))
		if f := env.Fields[0]; f.Rule != "type" || f.Message != "the arguments must be a JSON object, not "+kind {
			t.Errorf("%s: %+v", args, env.Fields)
		}
	}
}
