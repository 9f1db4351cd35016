package declared_test

import (
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/declared"
)

// keywordSchema declares one property per keyword whose failure the check
// words, beyond fileSchema's.
const keywordSchema = `{"type":"object","properties":{
	"score":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":10,"multipleOf":0.5},
	"name":{"type":"string","minLength":2},
	"tags":{"type":"array","minItems":1,"maxItems":3,"uniqueItems":true},
	"meta":{"type":"object","minProperties":1,"maxProperties":2},
	"version":{"const":"v1"},
	"shape":{"const":{"a":1}},
	"never":false,
	"either":{"not":{"type":"string"}},
	"level":{"enum":[1,2.5,"three",null]},
	"nested":{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false},
	"api_key":{"type":"string","minLength":10},
	"items":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}}}}},
	"dependentRequired":{"name":["score"]}}`

// Each keyword's failure reaches the client as core/validate's binder
// words it: the rule in the binder's vocabulary, its bound as the schema
// states it, a sentence naming the member by its path, and a preview of
// the value where it helps, never of a secret's.
func TestDeclaredWordsEveryKeyword(t *testing.T) {
	t.Parallel()
	d := declared.New("t", []byte(keywordSchema))
	cases := []struct{ args, field, rule, param, message string }{
		{`{"score":0}`, "score", "gt", "0", "score must be greater than 0 (got 0)"},
		{`{"score":10}`, "score", "lt", "10", "score must be less than 10 (got 10)"},
		{`{"score":0.3}`, "score", "multipleOf", "0.5", "score must be a multiple of 0.5 (got 0.3)"},
		{`{"name":"a","score":1}`, "name", "min", "2", `name must be at least 2 characters (got "a")`},
		{`{"tags":[]}`, "tags", "min", "1", "tags must have at least 1 items"},
		{`{"tags":[1,2,3,4]}`, "tags", "max", "3", "tags must have at most 3 items"},
		{`{"tags":[1,1]}`, "tags", "unique", "", "tags must not contain duplicate items"},
		{`{"meta":{}}`, "meta", "min", "1", "meta must have at least 1 entries"},
		{`{"meta":{"a":1,"b":2,"c":3}}`, "meta", "max", "2", "meta must have at most 2 entries"},
		{`{"version":"v2"}`, "version", "eq", `"v1"`, `version must equal "v1" (got "v2")`},
		{`{"shape":{"a":2}}`, "shape", "eq", `{"a":1}`, `shape must equal {"a":1}`},
		{`{"never":1}`, "never", "unknown", "", "never is not allowed by this tool's input schema"},
		{`{"either":"s"}`, "either", "schema", "", "either does not match the schema of this tool's input schema"},
		// Values of an enum that are not strings are listed as JSON.
		{`{"level":3}`, "level", "oneof", "", "level must be one of: 1, 2.5, three, null (got 3)"},
		{`{"level":"thre"}`, "level", "oneof", "", `level must be one of: 1, 2.5, three, null (got "thre"); did you mean "three"?`},
		// A member of a secret's name is never shown.
		{`{"api_key":"short"}`, "api_key", "min", "10", "api_key must be at least 10 characters"},
		{`{"items":[{"n":1},{"n":"x"}]}`, "items[1].n", "type", "integer", "items[1].n must be an integer, not a string"},
	}
	for _, c := range cases {
		_, env := check(t, d, c.args)
		if env == nil {
			t.Errorf("%s: accepted", c.args)
			continue
		}
		if len(env.Fields) != 1 {
			t.Errorf("%s: fields %s, want one", c.args, rules(env))
			continue
		}
		f := env.Fields[0]
		if f.Field != c.field || f.Rule != c.rule || f.Param != c.param || f.Message != c.message {
			t.Errorf("%s:\n got %q %s %q %q\nwant %q %s %q %q", c.args, f.Field, f.Rule, f.Param, f.Message, c.field, c.rule, c.param, c.message)
		}
		if want := "Invalid argument: " + c.message + "."; env.Message != want {
			t.Errorf("%s: message %q, want %q", c.args, env.Message, want)
		}
	}
	// A keyword without wording of its own is named.
	if _, env := check(t, d, `{"name":"ab"}`); env == nil || rules(env) != ":dependentRequired" ||
		!strings.Contains(env.Fields[0].Message, "the dependentRequired of this tool's input schema") {
		t.Errorf("dependentRequired: %+v", env)
	}
	_, env := check(t, d, `{"level":3}`)
	if f := env.Fields[0]; strings.Join(f.Allowed, ",") != "1,2.5,three,null" || f.Suggestion != "" {
		t.Errorf("enum of values of many types: allowed %q, suggestion %q", f.Allowed, f.Suggestion)
	}
}

// An unknown member of a nested object is named as a member of that
// object, as the binder names it, not as an argument of the tool, and
// gets neither the tool's arguments as allowed values nor a suggestion
// drawn from them.
func TestDeclaredUnknownNestedMember(t *testing.T) {
	t.Parallel()
	d := declared.New("t", []byte(keywordSchema))
	_, env := check(t, d, `{"nested":{"x":"a","name":1}}`)
	if env == nil {
		t.Fatal("an unknown nested member was accepted")
	}
	f := field(t, env, "nested.name")
	if f.Rule != "unknown" || f.Message != "nested.name is not a member of nested" || f.Allowed != nil || f.Suggestion != "" {
		t.Errorf("unknown nested member: %+v", f)
	}
}

// The format keyword is asserted by the drafts that assert it (draft 7
// and before), and worded with the format's name.
func TestDeclaredWordsAFormat(t *testing.T) {
	t.Parallel()
	d := declared.New("t", []byte(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
		"properties":{"email":{"type":"string","format":"email"}}}`))
	_, env := check(t, d, `{"email":"nope"}`)
	if env == nil {
		t.Fatal("an invalid email was accepted")
	}
	if f := env.Fields[0]; f.Rule != "format" || f.Param != "email" || f.Message != `email must be a valid email (got "nope")` {
		t.Errorf("format: %+v", f)
	}
	if _, env := check(t, d, `{"email":"a@example.com"}`); env != nil {
		t.Errorf("a valid email refused: %+v", env.Fields)
	}
}

// Properties declared with keywords the fast path does not read are
// checked all the same: an extra member's schema, an enum of numbers, a
// string converted to a declared number.
func TestDeclaredKeywordsBeyondTheFastPath(t *testing.T) {
	t.Parallel()
	d := declared.New("t", []byte(`{"type":"object","properties":{
		"n":{"type":"integer","enum":[1,2]},
		"ratio":{"type":"number"}},
		"additionalProperties":{"type":"string"}}`))
	if _, env := check(t, d, `{"n":3}`); env == nil || rules(env) != "n:oneof" {
		t.Errorf("an integer outside an enum of integers: %+v", env)
	}
	if _, env := check(t, d, `{"extra":1}`); env == nil || rules(env) != "extra:type" {
		t.Errorf("an extra member against additionalProperties' schema: %+v", env)
	}
	if got, env := check(t, d, `{"n":1,"extra":"x"}`); env != nil || got != "" {
		t.Errorf("valid arguments: converted %q, %+v", got, env)
	}
	if got, env := check(t, d, `{"ratio":"2.5"}`); env != nil || got != `{"ratio":2.5}` {
		t.Errorf("a number sent as a string: converted %q, %+v", got, env)
	}
	if _, env := check(t, d, `{"ratio":"2.5x"}`); env == nil || rules(env) != "ratio:type" {
		t.Errorf("a string that spells no number: %+v", env)
	}
	if _, env := check(t, d, `{"ratio":[1]}`); env == nil || rules(env) != "ratio:type" {
		t.Errorf("an array for a number is not converted: %+v", env)
	}
}
