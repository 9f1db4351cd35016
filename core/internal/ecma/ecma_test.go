package ecma

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// table is testdata/ecma.json, written by testdata/gen.mjs with node's
// own ECMA-262 engine.
type table struct {
	WhiteSpace [][2]rune `json:"whitespace"`
	NotDot     [][2]rune `json:"notDot"`
	Cases      []struct {
		Pattern string `json:"pattern"`
		Flags   *string
		Error   string
		Refused string
		Results []struct {
			Input string
			Match bool
		}
	} `json:"cases"`
}

func readTable(t *testing.T) table {
	t.Helper()
	b, err := os.ReadFile("testdata/ecma.json")
	if err != nil {
		t.Fatal(err)
	}
	var tb table
	if err := json.Unmarshal(b, &tb); err != nil {
		t.Fatal(err)
	}
	if len(tb.Cases) < 90 {
		t.Fatalf("the table holds %d cases", len(tb.Cases))
	}
	return tb
}

// TestDifferential holds the translator to node's engine: a pattern
// ECMA-262 accepts matches each input as node's does, and one it refuses,
// or that the table marks refused, is refused.
func TestDifferential(t *testing.T) {
	t.Parallel()
	for _, c := range readTable(t).Cases {
		re, err := Compile(c.Pattern)
		if c.Error != "" || c.Refused != "" {
			if err == nil {
				t.Errorf("%q: translated as %s; want it refused (%s%s)", c.Pattern, re, c.Error, c.Refused)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.Pattern, err)
			continue
		}
		for _, r := range c.Results {
			if *c.Flags == "" && strings.ContainsFunc(r.Input, func(r rune) bool { return r > 0xFFFF }) {
				t.Errorf("%q: the table runs it without the u flag on %q, past the BMP, where the two readings differ", c.Pattern, r.Input)
			}
			if got := re.MatchString(r.Input); got != r.Match {
				t.Errorf("%q on %q: %v, ECMA-262 says %v (RE2: %s)", c.Pattern, r.Input, got, r.Match, re)
			}
		}
	}
}

// TestSetsAreECMAs: the white space and line terminators spelled out are
// the ones node's engine matches with \s and leaves out of ".".
func TestSetsAreECMAs(t *testing.T) {
	t.Parallel()
	tb := readTable(t)
	spans := func(in [][2]rune) []span {
		out := make([]span, len(in))
		for i, r := range in {
			out[i] = span{r[0], r[1]}
		}
		return out
	}
	if want := spans(tb.WhiteSpace); !slices.Equal(whiteSpaceSpans, want) {
		t.Errorf("white space %v, node's %v", whiteSpaceSpans, want)
	}
	if want := spans(tb.NotDot); !slices.Equal(lineTerminatorSpans, want) {
		t.Errorf("line terminators %v, node's %v", lineTerminatorSpans, want)
	}
}

// TestRefusalsSayWhy: a refused pattern names the construct and where it
// starts.
func TestRefusalsSayWhy(t *testing.T) {
	t.Parallel()
	for pattern, want := range map[string]string{
		`^(?!admin$).+$`:              `lookahead "(?!" cannot be checked: Go's RE2 has no lookaround (at byte 1 `,
		`x(?=y)`:                      `lookahead "(?="`,
		`(?<=a)b`:                     `lookbehind "(?<="`,
		`(?<!a)b`:                     `lookbehind "(?<!"`,
		`(a)\1`:                       `backreference "\1" cannot be checked: Go's RE2 has no backreferences (at byte 3 `,
		`(?<q>a)\k<q>`:                `backreference "\k"`,
		`(?i)a`:                       `group "(?i" is not ECMA-262`,
		`(?`:                          `group "(?" is not ECMA-262`,
		`(?<1a>x)`:                    `named group needs`,
		`(?<ab`:                       `named group needs`,
		`*a`:                          `quantifier "*" has nothing to repeat (at byte 0 `,
		`a|+`:                         `quantifier "+" has nothing to repeat`,
		`(?:a)?{2}`:                   `quantifier "{2}" has nothing to repeat`,
		`\Aa`:                         `escape "\A" is not ECMA-262`,
		`\8`:                          `backreference "\8"`,
		`[\8]`:                        `escape "\8" is not ECMA-262`,
		`[\B]`:                        `escape "\B" is not ECMA-262`,
		`\00`:                         `escape "\0" is not ECMA-262`,
		`\x4`:                         `needs 2 hex digits (at byte 0 `,
		`\x4g`:                        `needs 2 hex digits`,
		`\u12`:                        `needs 4 hex digits`,
		`\u{}`:                        `"\u{" needs hex digits`,
		`\u{12`:                       `"\u{" needs hex digits`,
		`\u{110000}`:                  `past U+10FFFF`,
		`\c1`:                         `"\c" must be followed by a letter`,
		`\c`:                          `"\c" must be followed by a letter`,
		`ab\`:                         `ends with a "\" (at byte 2 `,
		`[a\`:                         `ends with a "\"`,
		`[ab`:                         `class is not closed (at byte 0 `,
		`[z-a]`:                       `range \x{7A}-\x{61} of a class is out of order (at byte 2 `,
		`\p{Greek}`:                   `property \p{Greek} is not one`,
		`\pL`:                         `need a {name}`,
		`\p{L`:                        `need a {name}`,
		`\p{sc=Grek}`:                 `property \p{sc=Grek}`,
		`\p{Script_Extensions=Latin}`: `property`,
		`\p{Alphabetic}`:              `property`,
	} {
		_, err := Translate(pattern)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Translate(%q) = %v, want %q", pattern, err, want)
		}
	}
}

// TestSpelling pins the RE2 spelling of each construct, where the
// differential table alone would let an equivalent but slower or looser
// spelling through.
func TestSpelling(t *testing.T) {
	t.Parallel()
	for pattern, want := range map[string]string{
		`a.b`:                       `a[^\x{A}\x{D}\x{2028}-\x{2029}]b`,
		`\d\D\w\W\b\B`:              `\d\D\w\W\b\B`,
		`^a|b$`:                     `^a|b$`,
		`a{2,}?b*?`:                 `a{2,}?b*?`,
		`(?:a)(b)(?<n>c)`:           `(?:a)(b)(c)`,
		`[^]`:                       `[\x{0}-\x{10FFFF}]`,
		`[]`:                        `[^\x{0}-\x{10FFFF}]`,
		`\P{Any}`:                   `[^\x{0}-\x{10FFFF}]`,
		`[\P{Any}a]`:                `[\x{61}]`,
		`[^\P{Any}]`:                `[\x{0}-\x{10FFFF}]`,
		`\P{ASCII}`:                 `[\x{80}-\x{10FFFF}]`,
		`[\p{L}\P{Lu}]`:             `[\p{L}\P{Lu}]`,
		`\p{gc=Nd}`:                 `[\p{Nd}]`,
		`\p{Script=Greek}`:          `[\p{Greek}]`,
		`[\w-.]`:                    `[\w\x{2D}\x{2E}]`,
		`[a-\d]`:                    `[\x{61}\x{2D}\d]`,
		`[a-]`:                      `[\x{61}\x{2D}]`,
		`[\b\-\]]`:                  `[\x{8}\x{2D}\x{5D}]`,
		`\t\n\v\f\r\0`:              `\x{9}\x{A}\x{B}\x{C}\x{D}\x{0}`,
		`\cJ\cj\x7e`:                `\x{A}\x{A}\x{7E}`,
		`\uD83D\uDE00\uD83Dx\uDE00`: `\x{1F600}\x{D83D}x\x{DE00}`,
		`\uD83D\u0041`:              `\x{D83D}\x{41}`,
		`\u{1f600}`:                 `\x{1F600}`,
		`a{`:                        `a\{`,
		`a{1,x}`:                    `a\{1,x\}`,
		`a{,2}`:                     `a\{,2\}`,
		`\/\-\é`:                    `\x{2F}\x{2D}\x{E9}`,
		`a+b`:                       `a+b`,
		`é.`:                        `é[^\x{A}\x{D}\x{2028}-\x{2029}]`,
	} {
		got, err := Translate(pattern)
		if err != nil || got != want {
			t.Errorf("Translate(%q) = %q, %v; want %q", pattern, got, err, want)
		}
	}
	if got, _ := Translate(`\s`); got != "["+whiteSpace+"]" || !utf8.ValidString(got) {
		t.Errorf(`\s = %q`, got)
	}
}

func TestCompileRefusesWhatGoRefuses(t *testing.T) {
	t.Parallel()
	for _, p := range []string{`(ab`, `ab)`, `a{1001}`, `\q`} {
		if re, err := Compile(p); err == nil {
			t.Errorf("Compile(%q) = %s", p, re)
		}
	}
	if re, err := Compile(`^\S+$`); err != nil || re.MatchString("bob\u00a0admin") || !re.MatchString("bob") {
		t.Errorf(`Compile("^\S+$") = %v, %v`, re, err)
	}
}
