package declared_test

import (
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/declared"
)

// A pattern RE2 cannot compile (an ECMA lookahead) turns off that keyword
// alone, with one warning naming the tool, where the keyword sits and
// which keyword it is; the rest of the schema is enforced.
func TestDeclaredDisablesOnlyThePatternRE2CannotCompile(t *testing.T) {
	t.Parallel()
	l := &logs{}
	d := declared.New("roles", []byte(`{"type":"object",
		"properties":{"role":{"type":"string","pattern":"^(?!admin).*$"},"limit":{"type":"integer","maximum":50}},
		"patternProperties":{"^(?!x_)":{"type":"integer"}}}`), declared.WithLogger(l.logger()))
	if !d.Enforced() || d.Off() != nil {
		t.Fatalf("the schema is off: %v", d.Off())
	}
	log := l.String()
	if n := strings.Count(log, "a keyword of the tool's declared input schema is not enforced"); n != 2 {
		t.Fatalf("%d warnings, want one per keyword: %s", n, log)
	}
	for _, want := range []string{
		"tool=roles property=/ keyword=patternProperties",
		"tool=roles property=/properties/role keyword=pattern",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("no warning with %q: %s", want, log)
		}
	}
	if strings.Index(log, "property=/ ") > strings.Index(log, "property=/properties/role") {
		t.Errorf("warnings not in the order of their locations: %s", log)
	}
	if _, env := check(t, d, `{"role":"admin","y":"not an integer"}`); env != nil {
		t.Errorf("a disabled keyword refused a call: %+v", env.Fields)
	}
	if _, env := check(t, d, `{"role":"admin","limit":51}`); env == nil || rules(env) != "limit:max" {
		t.Errorf("the rest of the schema is not enforced: %+v", env)
	}
}

// A pattern is not run on a value the cheap keywords of its schema refuse
// (length bounds, enum): the client reads one field error, the cheap
// one, and the pattern runs on what they let through.
func TestDeclaredRunsAPatternAfterTheCheapKeywords(t *testing.T) {
	t.Parallel()
	d := declared.New("t", []byte(`{"type":"object","properties":{
		"code":{"type":"string","pattern":"^[a-z]+$","minLength":2,"maxLength":5},
		"team":{"type":"string","pattern":"^[a-z]+$","enum":["ops","QA"]},
		"tag":{"type":["string","integer"],"pattern":"^[a-z]+$"}}}`))
	cases := []struct{ args, want, message string }{
		{`{"code":"ABCDEFG"}`, "code:max", `code must be at most 5 characters (got "ABCDEFG")`},
		{`{"code":"A"}`, "code:min", `code must be at least 2 characters (got "A")`},
		{`{"code":"ABC"}`, "code:pattern", `code must match the pattern ^[a-z]+$ (got "ABC")`},
		{`{"team":"dev"}`, "team:oneof", `team must be one of: ops, QA (got "dev")`},
		{`{"team":"QA"}`, "team:pattern", `team must match the pattern ^[a-z]+$ (got "QA")`},
		{`{"tag":"A1"}`, "tag:pattern", `tag must match the pattern ^[a-z]+$ (got "A1")`},
	}
	for _, c := range cases {
		_, env := check(t, d, c.args)
		if env == nil || rules(env) != c.want || env.Fields[0].Message != c.message {
			t.Errorf("%s: %+v, want %s %q", c.args, env, c.want, c.message)
		}
	}
	for _, args := range []string{`{"code":"abc"}`, `{"team":"ops"}`, `{"tag":7}`, `{"tag":"ab"}`} {
		if _, env := check(t, d, args); env != nil {
			t.Errorf("%s: refused: %+v", args, env.Fields)
		}
	}
}

// costlyPattern has a program of a few dozen instructions: a string of
// 768 KiB is over the pattern budget of one call, 1 KiB well within it.
const costlyPattern = `^(?:[a-z]+\\.)*[a-z]+$`

// The pattern work of one call is bounded: a call that would spend more
// is refused with rule size, rather than passed unchecked or run for
// seconds, and the next call has a budget of its own.
func TestDeclaredBoundsThePatternWorkOfACall(t *testing.T) {
	t.Parallel()
	d := declared.New("t", []byte(`{"type":"object","properties":{"body":{"type":"string","pattern":"`+costlyPattern+`"}}}`))
	long := `{"body":"` + strings.Repeat("a", 3<<18) + `"}`
	const message = "the arguments' strings are too long to check against this tool's patterns; send shorter values"
	for range 2 {
		_, env := check(t, d, long)
		if env == nil || rules(env) != ":size" || env.Fields[0].Message != message {
			t.Fatalf("a call over the pattern budget: %+v", env)
		}
		if _, env := check(t, d, `{"body":"`+strings.Repeat("a", 1<<10)+`"}`); env != nil {
			t.Fatalf("a call within the budget after one over it: %+v", env.Fields)
		}
	}
}

// A conversion cannot let a call through that the budget refuses: when
// converting a string to its declared type brings a pattern into play
// (here through if/then), the check after the conversion is bounded as
// the first one is.
func TestDeclaredBoundsThePatternWorkAfterAConversion(t *testing.T) {
	t.Parallel()
	d := declared.New("t", []byte(`{"type":"object",
		"properties":{"n":{"type":"integer"},"body":{"type":"string"}},
		"if":{"properties":{"n":{"type":"integer"}},"required":["n"]},
		"then":{"properties":{"body":{"pattern":"`+costlyPattern+`"}}}}`))
	if got, env := check(t, d, `{"n":"5","body":"ab.cd"}`); env != nil || got != `{"body":"ab.cd","n":5}` {
		t.Fatalf("a conversion within the budget: converted %q, %+v", got, env)
	}
	_, env := check(t, d, `{"n":"5","body":"`+strings.Repeat("a", 3<<18)+`"}`)
	if env == nil || rules(env) != ":size" {
		t.Fatalf("a conversion that brings a call over the budget: %+v", env)
	}
}
