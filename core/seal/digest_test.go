package seal_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/seal"
	"github.com/mcpguard/mcpguard/core/wire"
)

// Text that is not JSON, or that readers may read differently, digests
// as its bytes: it never digests like the valid arguments it resembles,
// and spacing it otherwise changes its digest (a canonical form would
// not).
func TestArgumentsDigestOfMalformedArguments(t *testing.T) {
	cases := []struct{ bad, respaced, valid string }{
		// literals and numbers
		{`{"a":fals}`, `{ "a":fals}`, `{"a":false}`},
		{`{"a":-}`, `{ "a":-}`, `{"a":-1}`},
		{`{"a":1.}`, `{ "a":1.}`, `{"a":1}`},
		{`{"a":01}`, `{ "a":01}`, `{"a":1}`},
		{`{"a":+1}`, `{ "a":+1}`, `{"a":1}`},
		{`{"a":x}`, `{ "a":x}`, `{"a":"x"}`},
		// strings
		{`{"a":"\ud800"}`, `{ "a":"\ud800"}`, `{"a":""}`},
		{`{"a":"\q"}`, `{ "a":"\q"}`, `{"a":"q"}`},
		{"{\"a\":\"x\ty\"}", "{ \"a\":\"x\ty\"}", `{"a":"x\ty"}`},
		{"{\"a\":\"\xff\"}", "{ \"a\":\"\xff\"}", `{"a":"\ufffd"}`},
		{`{"a":"abc`, `{ "a":"abc`, `{"a":"abc"}`},
		// objects
		{`{"a":{`, `{ "a":{`, `{"a":{}}`},
		{`{"a":1,`, `{ "a":1,`, `{"a":1}`},
		{`{"a":1,}`, `{ "a":1,}`, `{"a":1}`},
		{`{1:2}`, `{ 1:2}`, `{"1":2}`},
		{`{"a":1,2:3}`, `{ "a":1,2:3}`, `{"a":1,"2":3}`},
		{`{"a" 1}`, `{ "a" 1}`, `{"a":1}`},
		{`{"a"`, `{ "a"`, `{"a":null}`},
		{`{"a":1`, `{ "a":1`, `{"a":1}`},
		{`{"a":1 "b":2}`, `{ "a":1 "b":2}`, `{"a":1,"b":2}`},
		// arrays
		{`[[`, `[ [`, `[[]]`},
		{`[1,x]`, `[ 1,x]`, `[1,"x"]`},
		{`[1`, `[ 1`, `[1]`},
		{`[1,`, `[ 1,`, `[1]`},
		{`[1,]`, `[ 1,]`, `[1]`},
		{`[1 2]`, `[ 1 2]`, `[1,2]`},
	}
	for _, c := range cases {
		d := wire.ArgumentsDigest([]byte(c.bad))
		if d == wire.ArgumentsDigest([]byte(c.valid)) {
			t.Errorf("%q digests as the valid %q", c.bad, c.valid)
		}
		if d == wire.ArgumentsDigest([]byte(c.respaced)) {
			t.Errorf("%q and %q digest alike: malformed text was canonicalized", c.bad, c.respaced)
		}
	}
}

func TestArgumentsDigestLiterals(t *testing.T) {
	for _, lit := range []string{"true", "false", "null"} {
		a, b := `{"a":`+lit+`,"b":0}`, ` { "b" : 0 , "a" : `+lit+` } `
		if wire.ArgumentsDigest([]byte(a)) != wire.ArgumentsDigest([]byte(b)) {
			t.Errorf("%s and %s digest differently", a, b)
		}
	}
	seen := map[[32]byte]string{}
	for _, v := range []string{`{"a":true}`, `{"a":false}`, `{"a":null}`, `{"a":"true"}`, `{"a":0}`, `{"a":[]}`, `{"a":{}}`} {
		d := wire.ArgumentsDigest([]byte(v))
		if prev, dup := seen[d]; dup {
			t.Errorf("%s and %s digest alike", v, prev)
		}
		seen[d] = v
	}
}

// nested is n arrays, one inside the other, around inner.
func nested(n int, inner, space string) string {
	return strings.Repeat("["+space, n) + inner + strings.Repeat(space+"]", n)
}

// Nesting is canonicalized down to 128 arrays and objects
// (core/wire.MaxDepth); deeper arguments digest as their bytes.
func TestArgumentsDigestDepthBound(t *testing.T) {
	if wire.ArgumentsDigest([]byte(nested(128, "1", ""))) != wire.ArgumentsDigest([]byte(nested(128, "1", " "))) {
		t.Error("128 nested arrays are not canonicalized")
	}
	if wire.ArgumentsDigest([]byte(nested(129, "1", ""))) == wire.ArgumentsDigest([]byte(nested(129, "1", " "))) {
		t.Error("129 nested arrays are canonicalized")
	}
}

// members writes an object of the names given, each bound to its index,
// in the order given.
func members(names []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%d", n, i)
	}
	b.WriteByte('}')
	return b.String()
}

// reversed is members with the same name-value pairs written in reverse.
func reversed(names []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := len(names) - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "%q:%d", names[i], i)
		if i > 0 {
			b.WriteByte(',')
		}
	}
	b.WriteByte('}')
	return b.String()
}

// Objects of many members canonicalize as small ones do, and two names
// equal but for case (the Kelvin sign folds to k) still make the object
// digest as its bytes.
func TestArgumentsDigestManyMembers(t *testing.T) {
	var names []string
	for i := range 40 {
		names = append(names, fmt.Sprintf("m%02d", i))
	}
	if wire.ArgumentsDigest([]byte(members(names))) != wire.ArgumentsDigest([]byte(reversed(names))) {
		t.Error("an object of 40 members digests differently reordered")
	}
	for _, twin := range []string{"M07", "m\u212a"} {
		names := append(append([]string(nil), names...), twin, "mk")
		if twin == "M07" {
			names = names[:len(names)-1]
		}
		if wire.ArgumentsDigest([]byte(members(names))) == wire.ArgumentsDigest([]byte(reversed(names))) {
			t.Errorf("an object of %d members with a name equal but for case (%q) digests alike reordered", len(names), twin)
		}
	}
}

// Arguments larger than the digester keeps between calls digest
// canonically, and the calls after them still do.
func TestArgumentsDigestLargeArguments(t *testing.T) {
	big := strings.Repeat("x", 100<<10)
	a, b := `{"s":"`+big+`","n":1}`, `{ "n" : 1 , "s" : "`+big+`" }`
	for range 3 {
		if wire.ArgumentsDigest([]byte(a)) != wire.ArgumentsDigest([]byte(b)) {
			t.Fatal("large arguments digest differently reordered")
		}
		if wire.ArgumentsDigest([]byte(`{"a":1,"b":2}`)) != wire.ArgumentsDigest([]byte(`{"b":2,"a":1}`)) {
			t.Fatal("small arguments after large ones digest differently reordered")
		}
	}
}

// A sealed state whose key-id length byte claims more than the state
// holds is refused as tampered, not read past its end.
func TestOpenRefusesAForgedKeyIDLength(t *testing.T) {
	s := seal.New(ring(t, "k1:"+key(1)))
	raw, err := base64.RawURLEncoding.DecodeString(mustSeal(t, s, call, ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []byte{0, 3, 64, 65, 255} {
		forged := append([]byte(nil), raw...)
		forged[1] = n
		if _, err := s.Open(call, base64.RawURLEncoding.EncodeToString(forged)); !errors.Is(err, seal.ErrTampered) {
			t.Errorf("key id length %d: err = %v, want ErrTampered", n, err)
		}
	}
}

// NewKeyRing refuses a ring it could not seal or open with, and says why.
func TestNewKeyRingRefusesABadRing(t *testing.T) {
	k := make([]byte, seal.KeySize)
	cases := []struct {
		current string
		keys    map[string][]byte
		want    string
	}{
		{"k1", map[string][]byte{"k2": k}, `the current key "k1" is not in the ring`},
		{"k1", map[string][]byte{"k1": k[:16]}, `key "k1" is 16 bytes, want 32`},
		{"k 1", map[string][]byte{"k 1": k}, `key id "k 1": want 1 to 64 characters`},
		{"k1", map[string][]byte{"k1": k, "": k}, `key id "": want 1 to 64 characters`},
	}
	for _, c := range cases {
		r, err := seal.NewKeyRing(c.current, c.keys)
		if r != nil || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewKeyRing(%q, %d keys) = %v, %v; want an error saying %s", c.current, len(c.keys), r, err, c.want)
		}
	}
	r, err := seal.NewKeyRing("k2", map[string][]byte{"k1": k, "k2": k})
	if err != nil || r.Current() != "k2" || r.Len() != 2 {
		t.Fatalf("NewKeyRing of two keys = %v, %v", r, err)
	}
}
