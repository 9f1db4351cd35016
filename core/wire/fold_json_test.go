package wire_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/core/wire"
)

// lands reports whether encoding/json reads a member named name into a
// struct field tagged `json:"<word>"`: the reference every fold here is
// held to.
func lands(name, word string) bool {
	typ := reflect.StructOf([]reflect.StructField{{Name: "F", Type: reflect.TypeFor[int](), Tag: reflect.StructTag(`json:"` + word + `"`)}})
	v := reflect.New(typ)
	doc, _ := json.Marshal(map[string]int{name: 1})
	return json.Unmarshal(doc, v.Interface()) == nil && v.Elem().Field(0).Int() == 1
}

// validTag reports whether encoding/json takes word as a field's name
// from its tag (its isValidTag); other words cannot be probed with lands.
func validTag(word string) bool {
	for _, c := range word {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return word != ""
}

// Differential: FoldsAs, HasPrefixFold and ContainsFold agree with
// encoding/json on the names readers have been fooled with: mixed case,
// the Kelvin sign and the long s (which encoding/json reads as k and s),
// the dotted and dotless i (which it does not read as i, though their
// lower or upper case is i or I), look-alikes and other non-ASCII.
func TestFoldsAsWhereEncodingJSONLands(t *testing.T) {
	t.Parallel()
	words := []string{"k", "s", "i", "id", "isError", "requestState", "taskId", "toolFailure", "é", "σ", "ǅ", "straße"}
	names := []string{
		"k", "K", "\u212a", "s", "S", "ſ", "i", "I", "İ", "ı", "id", "ID", "iD", "İd", "ıd", "İD",
		"isError", "ISERROR", "IsErRoR", "ıserror", "İsError", "iſError", "requeſtState", "REQUESTSTATE",
		"requestStat\u0435", "taſ\u212aId", "tas\u212aID", "TOOLFAILURE", "toolFailures", "toolFailur",
		"é", "É", "e", "σ", "Σ", "ς", "ǅ", "Ǆ", "ǆ", "straße", "STRASSE", "STRAẞE", "", "\xff",
	}
	for _, w := range words {
		for _, n := range names {
			want := lands(n, w)
			if got := wire.FoldsAs([]byte(n), []byte(w)); got != want {
				t.Errorf("FoldsAs(%q, %q) = %v; encoding/json reads it into %q: %v", n, w, got, w, want)
			}
			if got := wire.HasPrefixFold([]byte(n+`"`), w+`"`); got != want {
				t.Errorf("HasPrefixFold(%q, %q) = %v; encoding/json: %v", n+`"`, w+`"`, got, want)
			}
			if want && !wire.ContainsFold([]byte(`{"x":{"`+n+`":1}}`), w) {
				t.Errorf("ContainsFold misses %q, which encoding/json reads as %q", n, w)
			}
		}
	}
}

// Every rune: two runes are one letter to [wire.Fold] exactly when
// encoding/json reads a member named by one into a field named by the
// other (where the other can name a field; else as bytes.EqualFold,
// which encoding/json's fold is documented to equal).
func TestFoldClassesAreEncodingJSONs(t *testing.T) {
	t.Parallel()
	classes := map[string][]rune{}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if utf8.ValidRune(r) {
			f := wire.Fold(string(r))
			classes[f] = append(classes[f], r)
		}
	}
	probed := 0
	for _, class := range classes {
		for _, r := range class {
			for o := unicode.SimpleFold(r); o != r; o = unicode.SimpleFold(o) {
				if !slices.Contains(class, o) {
					t.Fatalf("%U and %U are one letter to encoding/json but not to Fold", r, o)
				}
			}
		}
		if len(class) < 2 {
			continue
		}
		word := string(class[0])
		for _, r := range class[1:] {
			if validTag(word) {
				probed++
				if !lands(string(r), word) {
					t.Errorf("Fold takes %U for %U, which encoding/json does not read as it", r, class[0])
				}
			} else if !bytes.EqualFold([]byte(string(r)), []byte(word)) {
				t.Errorf("Fold takes %U for %U, which bytes.EqualFold does not", r, class[0])
			}
		}
	}
	if probed < 1000 {
		t.Errorf("only %d runes probed through encoding/json", probed)
	}
}

// DistinctFolds is whether encoding/json reads each name as a member of
// its own.
func TestDistinctFolds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		names []string
		want  bool
	}{
		{nil, true}, {[]string{"a"}, true}, {[]string{"a", "b", "ab"}, true},
		{[]string{"id", "ID"}, false}, {[]string{"s", "x", "ſ"}, false}, {[]string{"\u212a", "k"}, false},
		{[]string{"id", "İd", "ıd"}, true}, {[]string{"a", "a"}, false},
	} {
		if got := wire.DistinctFolds(slices.Values(c.names)); got != c.want {
			t.Errorf("DistinctFolds(%q) = %v, want %v", c.names, got, c.want)
		}
	}
}

// The proxy scans every successful result for four names (its
// plainSuccess): ASCII costs no allocation.
func TestFoldScansDoNotAllocate(t *testing.T) {
	result := []byte(`{"content":[{"type":"text","text":"Echo: hi \u212a ſ"}],"isError":false}`)
	if n := testing.AllocsPerRun(100, func() {
		_ = wire.ContainsFold(result, "toolfailure")
		_ = wire.HasPrefixFold(result[44:], "iserror")
		_ = wire.FoldsAs([]byte("requeſtState"), []byte("requestState"))
	}); n != 0 {
		t.Errorf("the scans allocate %v times", n)
	}
}

// Two names fold alike exactly when strings.EqualFold (encoding/json's
// bytes.EqualFold) reports them equal.
func TestFoldIsEqualFold(t *testing.T) {
	t.Parallel()
	names := []string{"path", "PATH", "Path", "key", "\u212Aey", "KEY", "sort", "\u017Fort", "SORT", "straße", "STRASSE",
		"ǅ", "ǆ", "Ǆ", "a1_-", "A1_-", "", "id", "İd", "ıd", "ID"}
	for _, a := range names {
		for _, b := range names {
			want := strings.EqualFold(a, b)
			if got := wire.Fold(a) == wire.Fold(b); got != want {
				t.Errorf("%q, %q: Fold alike %v, EqualFold %v", a, b, got, want)
			}
			if got := wire.FoldsAs([]byte(a), []byte(b)); got != want {
				t.Errorf("FoldsAs(%q, %q) = %v, EqualFold %v", a, b, got, want)
			}
		}
	}
}
