package validate

import (
	"reflect"
	"strings"
	"testing"
)

// dateTimeShape is dateTimePattern, read by hand: each field at its
// bounds.
func TestDateTimeShape(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"2024-01-02T03:04:05Z": true, "2024-01-02T00:00:00Z": true, "2024-01-02T09:59:59Z": true,
		"2024-01-02T10:00:00Z": true, "2024-01-02T19:00:00Z": true, "2024-01-02T20:00:00Z": true,
		"2024-01-02T23:59:59Z": true, "2024-01-02T24:00:00Z": false, "2024-01-02T29:00:00Z": false,
		"2024-01-02T30:00:00Z": false, "2024-01-02T23:60:00Z": false, "2024-01-02T23:59:60Z": false,
		"2024-01-02T03:04:05.1Z": true, "2024-01-02T03:04:05.123456789Z": true, "2024-01-02T03:04:05.Z": false,
		"2024-01-02T03:04:05,1Z": false, "2024-01-02T03:04:05+00:00": true, "2024-01-02T03:04:05-23:59": true,
		"2024-01-02T03:04:05+24:00": false, "2024-01-02T03:04:05+23:60": false, "2024-01-02T03:04:05+2300": false,
		"2024-01-02T03:04:05+23:5": false, "2024-01-02T03:04:05+23:599": false, "2024-01-02T03:04:05.5+01:30": true,
		"2024-01-02t03:04:05Z": false, "2024-01-02T03:04:05z": false, "2024-01-02T03:04:05": false,
		"2024-01-02T03:04:05ZZ": false, "2024-01-02 03:04:05Z": false, "2024-01-0203:04:05Z": false,
		"202-01-02T03:04:05Z": false, "2024-1-02T03:04:05Z": false, "2024/01/02T03:04:05Z": false,
		"2024-01-02T3:04:05Z": false, "2024-01-02T03-04:05Z": false, "2024-01-02T03:04-05Z": false,
		"2024-01-02T03:4:05Z": false, "2024-01-02T03:04:5Z": false, "": false, "2024": false, "2024-01-02T": false,
		"2024-01-02T03:04:05+": false, "2024-01-02T03:04:05+01": false, "2024-01-02T03:04:05+01:": false,
		"2024-01-02Tab:04:05Z": false, "2024-01-02T03:04:05.": false, "2024-01-02T03:04:05Y": false,
	} {
		if got := dateTimeShape([]byte(s)); got != want {
			t.Errorf("dateTimeShape(%q) = %v, want %v", s, got, want)
		}
	}
}

// suggest proposes the allowed value an agent nearly wrote, and nothing
// when the nearest is not clearly nearest.
func TestSuggest(t *testing.T) {
	t.Parallel()
	allowed := []string{"AI/ML", "Data", "Security", "Web/API"}
	for got, want := range map[string]string{
		"ai/ml": "AI/ML", "AI ML": "AI/ML", "Ai_Ml": "AI/ML", "web-api": "Web/API",
		"Seurity": "Security", "Secuirty": "Security", "securty": "Security", "Sec": "", "Dta": "Data", "Daat": "Data",
		"data": "Data", "AI/ML": "", "": "", "///": "", "Finance": "", "Webapi": "Web/API",
		strings.Repeat("a", 65): "", strings.Repeat("d", 64): "",
	} {
		if s := suggest(got, allowed); s != want {
			t.Errorf("suggest(%q) = %q, want %q", got, s, want)
		}
	}
	if s := suggest("x", nil); s != "" {
		t.Errorf("no allowed values: %q", s)
	}
	// Two values equally near, or equal once folded: no suggestion.
	if s := suggest("cat", []string{"bat", "hat"}); s != "" {
		t.Errorf("a tie: %q", s)
	}
	if s := suggest("ab", []string{"a-b", "A B"}); s != "" {
		t.Errorf("two folded matches: %q", s)
	}
	if s := suggest("ab", []string{"a-b", "a-b"}); s != "a-b" {
		t.Errorf("the same value twice is one: %q", s)
	}
	// The bound is a third of the shorter of the two, at least one edit.
	for got, want := range map[string]string{"abcdef": "abcdex", "abcdeg": "abcdex", "abxxex": "abcdex", "axxxex": "", "ab": "ax", "xy": ""} {
		if s := suggest(got, []string{"abcdex", "ax"}); s != want {
			t.Errorf("suggest(%q) = %q, want %q", got, s, want)
		}
	}
	// Long allowed values are not compared.
	long := strings.Repeat("b", 97)
	if s := suggest(strings.Repeat("b", 60), []string{long}); s != "" {
		t.Errorf("long allowed value: %q", s)
	}
	if s := suggest(strings.Repeat("b", 60), []string{strings.Repeat("b", 61)}); s != strings.Repeat("b", 61) {
		t.Errorf("a near value: %q", s)
	}
}

// oneofValues and parseTag read tags as validator/v10 does.
func TestTagParsing(t *testing.T) {
	t.Parallel()
	for param, want := range map[string][]string{
		"a b  c":          {"a", "b", "c"},
		"'Web API' Data":  {"Web API", "Data"},
		"'x' 'y z'":       {"x", "y z"},
		"a\tb\nc\rd\fe":   {"a", "b", "c", "d", "e"},
		"'unterminated x": {"unterminated", "x"},
		"it's fine":       {"its", "fine"},
		"":                nil,
		"   ":             nil,
		"''":              {""},
		"a'b'c":           {"abc"},
	} {
		if got := oneofValues(param); !reflect.DeepEqual(got, want) {
			t.Errorf("oneofValues(%q) = %q, want %q", param, got, want)
		}
	}
	l := parseTag("required, min=1 ,dive,keys,alpha,endkeys,omitempty,max=0x2C0x7C,dive,nostructlevel")
	if !l.required || len(l.rules) != 1 || l.rules[0] != (rule{name: "min", param: "1", raw: "min=1"}) {
		t.Errorf("level 0: %+v", l)
	}
	d := l.dive
	if d == nil || d.keys == nil || len(d.keys.rules) != 1 || d.keys.rules[0].name != "alpha" || !d.omitempty || d.required {
		t.Fatalf("level 1: %+v", d)
	}
	if len(d.rules) != 1 || d.rules[0].param != ",|" || d.rules[0].raw != "max=0x2C0x7C" {
		t.Errorf("level 1 rules: %+v", d.rules)
	}
	if d.dive == nil || !d.dive.noStruct || d.dive.dive != nil {
		t.Errorf("level 2: %+v", d.dive)
	}
	if l := parseTag("-"); !l.skip || l.rules != nil {
		t.Errorf("-: %+v", l)
	}
	if l := parseTag(""); l.skip || l.required || l.rules != nil {
		t.Errorf("empty: %+v", l)
	}
	if l := parseTag("omitnil,structonly"); !l.omitempty || !l.noStruct {
		t.Errorf("omitnil,structonly: %+v", l)
	}
	if l := parseTag("dive,keys,required,endkeys"); l.dive.keys == nil || !l.dive.keys.required || l.dive.required {
		t.Errorf("required in keys: %+v", l.dive)
	}
}

// checkPortable at the edges of each construct.
func TestCheckPortableEdges(t *testing.T) {
	t.Parallel()
	for expr, ok := range map[string]bool{
		`\x41`: true, `\x09\x9a\xa0\xf0\xA0\xF0\x0f\xaf\xAF`: true, `\x@1`: false, `\x1@`: false, `\xG1`: false, `\x/1`: false, `\x:1`: false, "\\x`1": false, `\x[1`: false,
		`a\x4`: false, `a\x`: false, `\x4g`: false, `\xg1`: false,
		`[^a]`: true, `[^]a]`: false, `[^]`: false, `a[`: false, `a[^`: false, `a(`: true, `a(?`: false, `[]`: false, `[a-z`: false, `[\-a]`: true, `a\-b`: false, `[a\]]`: true,
		`a{2}`: true, `a{0}`: true, `a{9}`: true, `a{10,90}`: true, `a{0,}`: true, `a{2,}`: true, `a{2,3}`: true, `a{}`: false, `a{,3}`: false, `a{1,2,3}`: false, `a{2`: false, `a{2,3`: false,
		`(?:a)`: true, `(?`: false, `(?i)a`: false, `(a)`: true, `a)`: true, `a}`: false, `a]`: false,
		`\d\D\w\W\t\n\r\f\v`: true, `\^\$\\\.\*\+\?\(\)\[\]\{\}\|\/`: true, `\s`: false, `\b`: false, `\`: false, `a\`: false,
		`a|b`: true, `a*?`: true, `.`: false, `[.]`: true, ``: false,
	} {
		if err := checkPortable(expr); (err == nil) != ok {
			t.Errorf("checkPortable(%q) = %v, want ok %v", expr, err, ok)
		}
	}
	if err := checkPortable(`[a`); err == nil || err.Error() != "unterminated character class" {
		t.Errorf("[a: %v", err)
	}
	if err := checkPortable(`a\q`); err == nil || !strings.Contains(err.Error(), `escape \q`) {
		t.Errorf(`\q: %v`, err)
	}
	for _, name := range []string{"a", "z", "0", "9", "_", "a_1", "order_id"} {
		if !validTagName(name) {
			t.Errorf("validTagName(%q) = false", name)
		}
	}
	for _, name := range []string{"", "A", "a-b", "a b", "é", "a.b", "`", "{", "/", ":", "aZ"} {
		if validTagName(name) {
			t.Errorf("validTagName(%q) = true", name)
		}
	}
}
