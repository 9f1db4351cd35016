package declared_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/declared"
)

// The arguments' problems and their conversions are bounded like the
// binder's: each conversion copies the objects on its way, so at most
// MaxFieldErrors strings are converted in one call, and at most
// MaxFieldErrors violations are listed, the rest counted in one "more"
// entry that the summary includes.

// schemaOf declares n properties named p00, p01, … of the JSON type typ,
// all of them required when required is set.
func schemaOf(n int, typ string, required bool) string {
	props := make([]string, n)
	names := make([]string, n)
	for i := range n {
		props[i] = fmt.Sprintf(`"p%02d":{"type":%q}`, i, typ)
		names[i] = fmt.Sprintf(`"p%02d"`, i)
	}
	s := `{"type":"object","properties":{` + strings.Join(props, ",") + `}`
	if required {
		s += `,"required":[` + strings.Join(names, ",") + `]`
	}
	return s + `}`
}

// argsOf sends each of the n properties as value.
func argsOf(n int, value string) string {
	members := make([]string, n)
	for i := range n {
		members[i] = fmt.Sprintf(`"p%02d":%s`, i, value)
	}
	return "{" + strings.Join(members, ",") + "}"
}

func TestDeclaredConvertsAtMostMaxFieldErrorsStrings(t *testing.T) {
	t.Parallel()
	n := declared.MaxFieldErrors
	d := declared.New("many", []byte(schemaOf(n+1, "integer", false)))
	// Exactly MaxFieldErrors strings: all converted.
	converted, env := check(t, d, argsOf(n, `"1"`))
	if env != nil || converted != argsOf(n, "1") {
		t.Fatalf("%d integers sent as strings: converted %s, error %+v", n, converted, env)
	}
	// One more: the conversions stop at the cap, and the one left is a
	// type error, not a silent success.
	converted, env = check(t, d, argsOf(n+1, `"1"`))
	if env == nil {
		t.Fatalf("%d integers sent as strings were all converted: %s", n+1, converted)
	}
	if len(env.Fields) != 1 || env.Fields[0].Rule != "type" || !regexp.MustCompile(`^p[0-9]{2}$`).MatchString(env.Fields[0].Field) {
		t.Fatalf("want one type error for the string left, got %+v", env.Fields)
	}
	if want := env.Fields[0].Field + " must be an integer, not a string"; env.Fields[0].Message != want {
		t.Errorf("message %q, want %q", env.Fields[0].Message, want)
	}
}

func TestDeclaredListsMaxFieldErrorsAndCountsTheRest(t *testing.T) {
	t.Parallel()
	n := declared.MaxFieldErrors
	for _, extra := range []int{0, 1, 5} {
		d := declared.New("many", []byte(schemaOf(n+extra, "string", true)))
		_, env := check(t, d, `{}`)
		listed := env.Fields
		if extra > 0 {
			last := env.Fields[len(env.Fields)-1]
			if last.Rule != "more" || last.Param != fmt.Sprint(extra) {
				t.Fatalf("%d violations: the last entry is %+v, want rule more, param %d", n+extra, last, extra)
			}
			listed = env.Fields[:len(env.Fields)-1]
		}
		if len(listed) != n {
			t.Fatalf("%d violations: %d listed, want %d: %s", n+extra, len(listed), n, rules(env))
		}
		// Sorted by path, the first MaxFieldErrors kept.
		for i, f := range listed {
			if want := fmt.Sprintf("p%02d", i); f.Field != want || f.Rule != "required" {
				t.Fatalf("%d violations: entry %d is %s:%s, want %s:required", n+extra, i, f.Field, f.Rule, want)
			}
		}
		if want := fmt.Sprintf("%d invalid arguments: ", n+extra); !strings.HasPrefix(env.Message, want) {
			t.Errorf("%d violations: message %q, want it to start %q", n+extra, env.Message, want)
		}
	}
}

// Strings inside arrays are converted and located like members: the
// first element as well as the last.
func TestDeclaredConvertsAndLocatesArrayElements(t *testing.T) {
	t.Parallel()
	d := declared.New("ids", []byte(`{"type":"object","properties":{
		"ids":{"type":"array","items":{"type":"integer","minimum":5}}}}`))
	if converted, env := check(t, d, `{"ids":["5","6"]}`); env != nil || converted != `{"ids":[5,6]}` {
		t.Fatalf(`["5","6"]: converted %q, error %+v`, converted, env)
	}
	if converted, env := check(t, d, `{"ids":[7,"8"]}`); env != nil || converted != `{"ids":[7,8]}` {
		t.Fatalf(`[7,"8"]: converted %q, error %+v`, converted, env)
	}
	for _, c := range []struct{ args, path, message string }{
		{`{"ids":[1]}`, "ids[0]", "ids[0] must be at least 5 (got 1)"},
		{`{"ids":[7,2]}`, "ids[1]", "ids[1] must be at least 5 (got 2)"},
		{`{"ids":["3"]}`, "ids[0]", "ids[0] must be at least 5 (got 3)"},
	} {
		_, env := check(t, d, c.args)
		if env == nil {
			t.Fatalf("%s: no error", c.args)
		}
		if f := field(t, env, c.path); f.Rule != "min" || f.Message != c.message {
			t.Errorf("%s: %+v, want rule min, message %q", c.args, f, c.message)
		}
	}
}

// With no declared properties, an unknown member is still named, with no
// allowed list or suggestion to offer.
func TestDeclaredUnknownMemberWithNoProperties(t *testing.T) {
	t.Parallel()
	d := declared.New("none", []byte(`{"type":"object","additionalProperties":false}`))
	_, env := check(t, d, `{"x":1}`)
	f := field(t, env, "x")
	if f.Rule != "unknown" || f.Message != "x is not an argument of this tool" || f.Allowed != nil || f.Suggestion != "" {
		t.Fatalf("got %+v", f)
	}
}

// A bound that is no integer is written in full, as the schema has it.
func TestDeclaredFractionalBoundsInFull(t *testing.T) {
	t.Parallel()
	d := declared.New("price", []byte(`{"type":"object","properties":{"p":{"type":"number","minimum":2.75}}}`))
	_, env := check(t, d, `{"p":1}`)
	if f := field(t, env, "p"); f.Rule != "min" || f.Param != "2.75" || f.Message != "p must be at least 2.75 (got 1)" {
		t.Fatalf("got %+v", f)
	}
}
