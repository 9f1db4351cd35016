package str_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/internal/str"
)

// A cut never splits a UTF-8 character, at any length, and keeps as much
// as the bound allows: every prefix of a valid string that Prefix returns
// is valid, and the next character would not have fitted.
func TestPrefixNeverSplitsACharacter(t *testing.T) {
	t.Parallel()
	pieces := []string{"a", "é", "日", "😀", "\u200b", "\xff", "\x80", "\xe6\x97"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 5_000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		for n := -1; n <= len(s)+1; n++ {
			p := str.Prefix(s, n)
			if !strings.HasPrefix(s, p) || len(p) > max(n, 0) && len(p) != len(s) {
				t.Fatalf("Prefix(%q, %d) = %q: not a prefix within the bound", s, n, p)
			}
			if utf8.ValidString(s) && !utf8.ValidString(p) {
				t.Fatalf("Prefix(%q, %d) = %q splits a character", s, n, p)
			}
			// The cut is at a character boundary of s, and the character
			// after it would not have fitted.
			if len(p) < len(s) {
				_, size := utf8.DecodeRuneInString(s[len(p):])
				if len(p)+size <= n {
					t.Fatalf("Prefix(%q, %d) = %q stops short", s, n, p)
				}
				if !utf8.RuneStart(s[len(p)]) && utf8.ValidString(s) {
					t.Fatalf("Prefix(%q, %d) = %q ends inside a character", s, n, p)
				}
			}
		}
	}
}

func TestClip(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 0, ""}, {"abc", 3, "abc"}, {"abcd", 3, "…"}, {"abcde", 4, "a…"}, {"abc", 4, "abc"},
		{"日本", 6, "日本"}, {"日本語x", 10, "日本語x"}, {"日本語x", 9, "日本…"}, {"日本語", 8, "日…"}, {"日本語", 5, "…"},
		{"a日", 1, "a"}, {"a日", 2, "a"}, {"a日", 0, ""}, {"ééé", 5, "é…"}, {"ééé", 4, "…"}, {"abcdef", 5, "ab…"},
		{"😀😀", 7, "😀…"}, {"😀😀", 6, "…"}, {"a\xffbcde", 5, "a\xff…"},
	} {
		got := str.Clip(c.s, c.n, "…")
		if got != c.want || len(got) > max(c.n, 0) {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
	// The bound counts the mark: at every length around it, never over.
	for n := 0; n <= 30; n++ {
		for _, s := range []string{strings.Repeat("x", 40), strings.Repeat("é", 20), strings.Repeat("€", 14)} {
			if got := str.Clip(s, n, " …(truncated)"); len(got) > n || !utf8.ValidString(got) {
				t.Errorf("Clip(%q, %d) = %q, %d bytes", s, n, got, len(got))
			}
		}
	}
	if got := str.Clip(strings.Repeat("x", 20), 17, " …(truncated)"); got != "xx …(truncated)" {
		t.Errorf("mark: %q", got)
	}
}

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"query", "query", 0}, {"qeury", "query", 1},
		{"query", "quer", 1}, {"query", "qury", 1}, {"query", "guery", 1}, {"ab", "ba", 1}, {"abc", "cba", 2},
		{"kitten", "sitting", 3}, {"日本語", "日本", 1}, {"ca", "abc", 3}, {"日本", "本日", 1},
	} {
		for _, ab := range [][2]string{{c.a, c.b}, {c.b, c.a}} {
			if d := str.Distance(ab[0], ab[1], 1<<30); d != c.d {
				t.Errorf("Distance(%q, %q) = %d, want %d", ab[0], ab[1], d, c.d)
			}
		}
	}
}

// osa is the whole matrix, no band and no limit: the oracle; without
// transpositions, of the Levenshtein distance.
func osa(a, b []rune, transpose bool) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if transpose && i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// The banded distance with its early end agrees with the whole matrix on
// every limit, and a Distances reused across calls with the one-off.
func TestDistanceBandAgreesWithTheWholeMatrix(t *testing.T) {
	t.Parallel()
	var reused str.Distances
	lev := str.Distances{Levenshtein: true}
	r := rand.New(rand.NewPCG(3, 4))
	word := func() string {
		b := make([]rune, r.IntN(12))
		for i := range b {
			b[i] = []rune("abé")[r.IntN(3)]
		}
		return string(b)
	}
	for range 20_000 {
		a, b := word(), word()
		full, levFull := osa([]rune(a), []rune(b), true), osa([]rune(a), []rune(b), false)
		for limit := 1; limit <= 5; limit++ {
			want := min(full, limit)
			if d := str.Distance(a, b, limit); d != want {
				t.Fatalf("Distance(%q, %q, %d) = %d, want %d", a, b, limit, d, want)
			}
			if d := reused.Between(a, b, limit); d != want {
				t.Fatalf("Between(%q, %q, %d) = %d, want %d", a, b, limit, d, want)
			}
			if d := lev.Between(a, b, limit); d != min(levFull, limit) {
				t.Fatalf("Levenshtein Between(%q, %q, %d) = %d, want %d", a, b, limit, d, min(levFull, limit))
			}
		}
	}
}

func TestDistancesDoNotAllocateOnceWarm(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	var d str.Distances
	d.Between("shop_search_products", "shop_serach_product", 3)
	if n := testing.AllocsPerRun(100, func() { d.Between("shop_search_products", "shop_serach_product", 3) }); n != 0 {
		t.Errorf("%v allocations a call", n)
	}
}

// Each invalid byte becomes one U+FFFD, as JSON encoding makes it, so
// that a bound measured after ValidUTF8 holds on the wire.
func TestValidUTF8CountsWhatJSONSends(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "abc", "é", "\x80\x80", "a\xffb", "\xe6\x97", "日\xe6\x97本"} {
		got := str.ValidUTF8(s)
		b, _ := json.Marshal(s)
		var want string
		_ = json.Unmarshal(b, &want)
		if got != want {
			t.Errorf("ValidUTF8(%q) = %q, JSON sends %q", s, got, want)
		}
	}
}

func TestValidUTF8DoesNotAllocateForValidText(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	if n := testing.AllocsPerRun(10, func() { str.ValidUTF8("already valid é") }); n != 0 {
		t.Errorf("%v allocations for a valid string", n)
	}
}
