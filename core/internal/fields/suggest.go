package fields

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/internal/str"
)

// Suggest returns the allowed value an agent most likely meant by got, or
// "" when none is clearly closest. Values equal after folding case and
// dropping punctuation and spaces win ("ai/ml", "ai-ml" and "AI ML" all
// mean "AI/ML"); otherwise a small edit distance on the folded forms
// does ("Seurity" means "Security"). Long inputs get no suggestion: the
// edit distance is quadratic, and a long value is no typo.
func Suggest(got string, allowed []string) string {
	if got == "" || len(got) > 64 || len(allowed) == 0 {
		return ""
	}
	if slices.Contains(allowed, got) {
		return ""
	}
	// A value equal to got once folded is at distance 0, and wins below
	// unless two are.
	g := fold(got)
	if g == "" {
		return ""
	}
	best, bestD, tie := "", 1<<30, false
	for _, a := range allowed {
		fa := fold(a)
		if len(fa) > 96 {
			continue
		}
		d := str.Distance(g, fa, bestD+1)
		switch {
		case d < bestD:
			best, bestD, tie = a, d, false
		case d == bestD && a != best:
			tie = true
		}
	}
	limit := max(1, min(utf8.RuneCountInString(g), utf8.RuneCountInString(fold(best)))/3)
	if tie || bestD > limit {
		return ""
	}
	return best
}

// fold lower-cases s and keeps only its letters and digits.
func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
