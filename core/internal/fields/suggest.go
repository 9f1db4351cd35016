package fields

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
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
		d := distance(g, fa)
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

// distance is the optimal-string-alignment edit distance between a and b,
// in runes: insertions, deletions, substitutions and transpositions of
// neighbours ("qeury" is one edit from "query") each cost one.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	pp := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
		pp, prev, cur = prev, cur, pp
	}
	return prev[len(rb)]
}
