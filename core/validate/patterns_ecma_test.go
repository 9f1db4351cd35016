package validate

import (
	"regexp"
	"testing"

	"github.com/mcpguard/mcpguard/core/internal/ecma"
)

// TestStatedPatternsMeanWhatGoChecks: every pattern a derived schema
// states (validator/v10's baked-in expressions, the date-time shape, a
// named pattern in the portable subset) matches, read as JSON Schema
// reads it (ECMA-262, through the translator core/declared uses), exactly
// what Go's regexp, which validator/v10 runs, matches: on white space Go
// and ECMA-262 see differently, line terminators, non-ASCII digits and
// letters, an injected second line.
func TestStatedPatternsMeanWhatGoChecks(t *testing.T) {
	t.Parallel()
	exprs := []string{dateTimePattern}
	for _, p := range bakedPatterns {
		exprs = append(exprs, p)
	}
	for _, expr := range []string{
		`[^a]+`, `[^\n]*`, `[a-z]+`, `\d\D\w\W\t\n\r\f\v`, `\x41\/`, `[\-a]`, `a{2,3}?`, `(?:ab|c)+`,
		`p-[0-9]{4}`, `20[0-9]{2}-(0[1-9]|1[0-2])`, `[^ ]+`, `[^\t]+`,
	} {
		if checkPortable(expr) != nil {
			t.Fatalf("%q is not portable", expr)
		}
		exprs = append(exprs, "^(?:"+expr+")$")
	}
	inputs := []string{"", "a", "A", "aa", "abc", "ab\n", "\na", "5", "\u0665", "\uff15", "é", "\u00a0", "\u2028", "\u3000",
		"\ufeff", "\v", "\t\n\v\f\r", "A/", "1\u00a0", "p-1234", "p-1234\n", "2024-01", "2024-13",
		"2024-01-02T03:04:05Z", "2024-01-02T03:04:05.5+01:00", "2024-01-02T03:04:05Z\nX", "0xFF", "+1.5", "-", "a-",
		"00000000-0000-0000-0000-000000000000", "ab\rX-Injected: 1", "😀", "x\u0085"}
	for _, expr := range exprs {
		goRE := regexp.MustCompile(expr)
		ecmaRE, err := ecma.Compile(expr)
		if err != nil {
			t.Errorf("%q: %v", expr, err)
			continue
		}
		for _, in := range inputs {
			if g, e := goRE.MatchString(in), ecmaRE.MatchString(in); g != e {
				t.Errorf("%q on %q: Go %v, JSON Schema %v", expr, in, g, e)
			}
		}
	}
}
