package wire_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/wire"
)

func canonical(t *testing.T, in string) string {
	t.Helper()
	out, err := wire.Canonical(nil, []byte(in))
	if err != nil {
		t.Fatalf("Canonical(%q): %v", in, err)
	}
	return string(out)
}

func TestCanonicalForms(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		// RFC 8785, 3.2.2 and appendix B: numbers a double holds exactly.
		`0`: `0`, `-0`: `0`, `1`: `1`, `1.0`: `1`, `10e-1`: `1`, `0.1e1`: `1`, `1E0`: `1`,
		`1e21`: `1e+21`, `1e20`: `100000000000000000000`, `123e18`: `123000000000000000000`,
		`0.000001`: `0.000001`, `1e-7`: `1e-7`, `-1.5`: `-1.5`, `1.25e-10`: `1.25e-10`,
		`333333333.33333329`: `333333333.33333329`, `4.5`: `4.5`, `0.002`: `0.002`,
		`1e+30`: `1e+30`, `-12e-3`: `-0.012`, `100`: `100`, `0.00`: `0`,
		// Exact where JCS would round through a double.
		`9007199254740993`: `9007199254740993`, `12345678901234567890123`: `1.2345678901234567890123e+22`,
		// Strings: only JCS's escapes.
		`"\u0041\/\u00e9\ud83d\ude00"`: `"A/é😀"`, `"\u001f\n\t"`: `"\u001f\n\t"`, `"a\"b\\"`: `"a\"b\\"`,
		// Objects sorted by UTF-16 code units, white space gone.
		` { "b" : 1 , "a" : [ 1 , { "d" : null , "c" : true } ] } `: `{"a":[1,{"c":true,"d":null}],"b":1}`,
		`{"\ud83d\ude00":1,"\ufb33":2}`:                             "{\"\U0001F600\":1,\"\uFB33\":2}", // U+1F600 is D83D in UTF-16, before U+FB33
		`{"aa":1,"a":2}`:                                            `{"a":2,"aa":1}`, `[]`: `[]`, `{}`: `{}`, `false`: `false`,
	} {
		if got := canonical(t, in); got != want {
			t.Errorf("Canonical(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestCanonicalRefuses(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		``, `{`, `{"a":1,"a":1}`, `{"a":1,"A":1}`, `{"x":{"requestState":"a","requeſtState":"b"}}`, `{"a":1,"b":{"c":1,"c":2}}`, `"\ud800"`, `"\udc00\ud800"`, "\"\xff\"",
		`"a` + "\x01" + `"`, `01`, `1.`, `.5`, `1e`, `+1`, `tru`, `nul`, `[1,]`, `{"a":1,}`, `{"a" 1}`,
		`1 2`, `"\x"`, `"\u12"`, `1e99999999999`, strings.Repeat("[", wire.MaxDepth+1) + strings.Repeat("]", wire.MaxDepth+1),
	} {
		if out, err := wire.Canonical(nil, []byte(in)); err == nil {
			t.Errorf("Canonical(%q) = %s, want an error", in, out)
		}
	}
	deep := strings.Repeat("[", wire.MaxDepth) + strings.Repeat("]", wire.MaxDepth)
	if _, err := wire.Canonical(nil, []byte(deep)); err != nil {
		t.Errorf("Canonical of %d nested arrays: %v", wire.MaxDepth, err)
	}
}

func TestDigestNamesTheSameCallAlike(t *testing.T) {
	t.Parallel()
	same := [][2]string{
		{`{"path":"a","n":1}`, ` {"n":1.0,"path":"\u0061"} `},
		{``, `{}`}, {`null`, `{}`}, {`{}`, " {\n} "},
	}
	for _, p := range same {
		a, _ := wire.Digest("read", []byte(p[0]))
		b, _ := wire.Digest("read", []byte(p[1]))
		if a != b {
			t.Errorf("Digest(%s) != Digest(%s)", p[0], p[1])
		}
	}
	apart := [][2]string{
		{`{"id":9007199254740993}`, `{"id":9007199254740992}`},
		{`{"a":1}`, `{"a":"1"}`}, {`{"a":1,"a":1}`, `{"a":1}`}, {`{"a":[1,2]}`, `{"a":[2,1]}`},
	}
	for _, p := range apart {
		a, _ := wire.Digest("read", []byte(p[0]))
		b, _ := wire.Digest("read", []byte(p[1]))
		if a == b {
			t.Errorf("Digest(%s) == Digest(%s)", p[0], p[1])
		}
	}
	x, _ := wire.Digest("read", []byte(`{}`))
	y, _ := wire.Digest("write", []byte(`{}`))
	z, _ := wire.Digest("rea", []byte(`d{}`))
	if x == y || x == z {
		t.Error("calls of two tools digest alike")
	}
	if _, ok := wire.Digest("t", []byte(`{"a":`)); ok {
		t.Error("Digest of invalid JSON is ok")
	}
}

// FuzzCanonical holds Canonical to encoding/json: what it accepts is
// valid JSON, its output is valid, canonical again unchanged, and decodes
// to the same numbers and strings.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":[1,2.50,{"x":"\u00e9"}],"a":-0.0e3}`, `"\ud83d\ude00"`, `123456789012345678901234567890`, `[true,false,null]`, `1e-7`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := wire.Canonical(nil, in)
		if err != nil {
			return
		}
		if !json.Valid(in) {
			t.Fatalf("Canonical accepted invalid JSON %q", in)
		}
		again, err := wire.Canonical(nil, out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("Canonical is not idempotent: %q -> %q -> %q (%v)", in, out, again, err)
		}
		var a, b any
		da, db := json.NewDecoder(bytes.NewReader(in)), json.NewDecoder(bytes.NewReader(out))
		da.UseNumber()
		db.UseNumber()
		if da.Decode(&a) != nil || db.Decode(&b) != nil {
			t.Fatalf("decode %q / %q", in, out)
		}
		if !sameValue(a, b) {
			t.Fatalf("Canonical changed the value: %q -> %q", in, out)
		}
	})
}

func sameValue(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		fx, e1 := x.Float64()
		fy, e2 := y.Float64()
		return (e1 != nil) == (e2 != nil) && (e1 != nil || fx == fy)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if !sameValue(v, y[k]) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// A document's names need only differ exactly: "id" and "ID" are two
// properties to a JSON Schema, while a repeated name is still refused.
func TestCanonicalDocumentRefusesOnlyEqualNames(t *testing.T) {
	got, err := wire.CanonicalDocument(nil, []byte(`{"properties":{"id":{},"ID":{}}}`))
	if err != nil || string(got) != `{"properties":{"ID":{},"id":{}}}` {
		t.Errorf("CanonicalDocument = %s, %v", got, err)
	}
	if _, err := wire.Canonical(nil, []byte(`{"id":1,"ID":2}`)); err == nil {
		t.Error("Canonical kept names that fold alike")
	}
	if _, err := wire.CanonicalDocument(nil, []byte(`{"a":{"id":1,"id":2}}`)); err == nil {
		t.Error("CanonicalDocument kept a repeated name")
	}
}
