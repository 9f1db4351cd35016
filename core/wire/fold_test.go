package wire_test

import (
	"encoding/json"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/core/wire"
)

// FoldsAs and Fold agree with encoding/json itself: a member named a is
// read into a field named b exactly when they fold alike. Checked on
// the names readers have been fooled with, and on every rune against
// unicode's simple folding.
func TestFoldIsEncodingJSONs(t *testing.T) {
	type target struct {
		RequestState string `json:"requestState"`
		K            string `json:"k"`
		S            string `json:"s"`
	}
	for _, c := range []struct {
		member string
		field  string
	}{
		{"requeſtState", "requestState"}, {"REQUESTSTATE", "requestState"}, {"\u212a", "k"}, {"ſ", "s"},
		{"requestStat\u0435", ""}, // a Cyrillic e: not read as requestState
	} {
		var got target
		_ = json.Unmarshal([]byte(`{"`+c.member+`":"x"}`), &got)
		read := ""
		switch {
		case got.RequestState == "x":
			read = "requestState"
		case got.K == "x":
			read = "k"
		case got.S == "x":
			read = "s"
		}
		if read != c.field {
			t.Fatalf("encoding/json read %q as %q, the test expects %q", c.member, read, c.field)
		}
		for _, field := range []string{"requestState", "k", "s"} {
			if want := field == read; wire.FoldsAs([]byte(c.member), []byte(field)) != want {
				t.Errorf("FoldsAs(%q, %q) = %v, want %v", c.member, field, !want, want)
			}
		}
	}
	// Every rune: two runes unicode's simple folding links fold alike (the
	// converse, against encoding/json itself: fold_json_test.go).
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		f := wire.Fold(string(r))
		for o := unicode.SimpleFold(r); o != r; o = unicode.SimpleFold(o) {
			if wire.Fold(string(o)) != f {
				t.Fatalf("%U and %U are one letter to unicode.SimpleFold but fold to %q and %q", r, o, f, wire.Fold(string(o)))
			}
		}
	}
	if !wire.FoldsAs([]byte("Name"), []byte("nAME")) || wire.FoldsAs([]byte("name"), []byte("names")) || wire.FoldsAs([]byte("a"), []byte("é")) {
		t.Error("FoldsAs on ASCII")
	}
	if n := testing.AllocsPerRun(100, func() { _ = wire.FoldsAs([]byte("requestState"), []byte("REQUESTSTATE")) }); n != 0 {
		t.Errorf("FoldsAs of ASCII names allocates %v times", n)
	}
}
