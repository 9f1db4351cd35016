package fields

import "testing"

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"query", "query", 0}, {"qeury", "query", 1},
		{"query", "quer", 1}, {"query", "qury", 1}, {"query", "guery", 1}, {"ab", "ba", 1}, {"abc", "cba", 2},
		{"kitten", "sitting", 3}, {"日本語", "日本", 1}, {"ca", "abc", 3},
	} {
		if d := distance(c.a, c.b); d != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, d, c.d)
		}
		if d := distance(c.b, c.a); d != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d", c.b, c.a, d, c.d)
		}
	}
}
