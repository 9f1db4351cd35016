package validate_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/core/validate"
)

// Every kind of problem binding finds counts past MaxFieldErrors, not
// only type errors and unknown members: values out of their type's range
// and malformed date-times too. The first MaxFieldErrors are listed and
// the rest counted in one "more" entry that the summary includes.
func TestBindingCountsEveryKindOfProblemPastTheCap(t *testing.T) {
	t.Parallel()
	type args struct {
		Small []int8      `json:"small,omitempty"`
		Whens []time.Time `json:"whens,omitempty"`
	}
	b := validate.NewBinder[args]()
	n := validate.MaxFieldErrors + 5
	for _, c := range []struct{ name, args, path, rule string }{
		{"out of range", `{"small":[` + strings.TrimSuffix(strings.Repeat("1000,", n), ",") + `]}`, "small", "max"},
		{"malformed date-times", `{"whens":[` + strings.TrimSuffix(strings.Repeat(`"soon",`, n), ",") + `]}`, "whens", "format"},
	} {
		env := invalid(t, call(t, b, c.args))
		if len(env.Fields) != validate.MaxFieldErrors+1 {
			t.Fatalf("%s: %d entries, want %d and one more: %s", c.name, len(env.Fields), validate.MaxFieldErrors, rules(env))
		}
		for i, f := range env.Fields[:validate.MaxFieldErrors] {
			if want := fmt.Sprintf("%s[%d]", c.path, i); f.Field != want || f.Rule != c.rule {
				t.Fatalf("%s: entry %d is %s:%s, want %s:%s", c.name, i, f.Field, f.Rule, want, c.rule)
			}
		}
		if last := env.Fields[validate.MaxFieldErrors]; last.Rule != "more" || last.Param != "5" {
			t.Errorf("%s: last entry %+v, want rule more, param 5", c.name, last)
		}
		if want := fmt.Sprintf("%d invalid arguments: ", n); !strings.HasPrefix(env.Message, want) {
			t.Errorf("%s: message %q, want it to start %q", c.name, env.Message, want)
		}
	}
}
