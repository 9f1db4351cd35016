package seal_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/core/seal"
	"github.com/mcpguard/mcpguard/core/wire"
)

func key(b byte) string {
	return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{b}, seal.KeySize))
}

func ring(t testing.TB, text string) *seal.KeyRing {
	t.Helper()
	r, err := seal.ParseKeyRing([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var call = seal.Binding{Method: "tools/call", Name: "deploy", Arguments: wire.ArgumentsDigest([]byte(`{"a":1}`))}

func mustSeal(t testing.TB, s *seal.Sealer, b seal.Binding, state string) string {
	t.Helper()
	out, err := s.Seal(b, state)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	s := seal.New(nil)
	for _, state := range []string{"", "x", "env=production", strings.Repeat("é", 1000)} {
		sealed := mustSeal(t, s, call, state)
		if len(state) > 3 && strings.Contains(sealed, state) {
			t.Fatalf("sealed state shows its plaintext: %s", sealed)
		}
		got, err := s.Open(call, sealed)
		if err != nil || got != state {
			t.Fatalf("Open = %q, %v; want %q", got, err, state)
		}
	}
	if a, b := mustSeal(t, s, call, "x"), mustSeal(t, s, call, "x"); a == b {
		t.Fatal("two seals of one state are equal: the nonce is not random")
	}
}

func TestEveryByteAuthenticated(t *testing.T) {
	s := seal.New(nil)
	sealed := mustSeal(t, s, call, "env=staging")
	raw, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		edited := bytes.Clone(raw)
		edited[i] ^= 0x01
		_, err := s.Open(call, base64.RawURLEncoding.EncodeToString(edited))
		if !errors.Is(err, seal.ErrTampered) && !errors.Is(err, seal.ErrUnknownKey) {
			t.Fatalf("byte %d flipped: Open err = %v", i, err)
		}
	}
	// Line breaks, which the base64 decoder skips: the state with one is
	// another spelling of the same bytes, and a state of nothing but line
	// breaks decoded to nothing (FuzzOpen found Open panicking on it).
	broken := sealed[:10] + "\n" + sealed[10:]
	for _, bad := range []string{"", "env=staging", sealed[:len(sealed)-1], sealed + "A", "!" + sealed[1:], strings.Repeat("A", 1<<20),
		broken, sealed + "\r\n", strings.Repeat("\n", len(sealed))} {
		if _, err := s.Open(call, bad); !errors.Is(err, seal.ErrTampered) {
			t.Errorf("Open(%.20q…) err = %v, want ErrTampered", bad, err)
		}
	}
}

// A sealed state has one spelling: the last character's spare bits, which
// a lenient base64 decoder drops, are part of it (issue 48: a state opened
// under 16 spellings).
func TestSpareBitsDoNotOpen(t *testing.T) {
	s := seal.New(nil)
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	rems := map[int]bool{}
	for n := 0; !(rems[2] && rems[3]) && n < 8; n++ {
		sealed := mustSeal(t, s, call, strings.Repeat("x", n))
		rems[len(sealed)%4] = true
		want, _ := base64.RawURLEncoding.DecodeString(sealed)
		for _, c := range alphabet {
			other := sealed[:len(sealed)-1] + string(c)
			got, err := base64.RawURLEncoding.DecodeString(other)
			if other == sealed || err != nil || !bytes.Equal(got, want) {
				continue
			}
			if _, err := s.Open(call, other); !errors.Is(err, seal.ErrTampered) {
				t.Errorf("%q spelled with %q last: Open err = %v, want ErrTampered", sealed, c, err)
			}
		}
	}
	if !rems[2] || !rems[3] {
		t.Fatalf("want states with both spare-bit counts, got lengths mod 4 %v", rems)
	}
}

func TestBinding(t *testing.T) {
	s := seal.New(nil)
	sealed := mustSeal(t, s, call, "st")
	for name, b := range map[string]seal.Binding{
		"method":    {Method: "prompts/get", Name: call.Name, Arguments: call.Arguments},
		"tool":      {Method: call.Method, Name: "delete", Arguments: call.Arguments},
		"arguments": {Method: call.Method, Name: call.Name, Arguments: wire.ArgumentsDigest([]byte(`{"a":2}`))},
		"caller":    {Method: call.Method, Name: call.Name, Arguments: call.Arguments, Caller: "mallory"},
	} {
		if _, err := s.Open(b, sealed); !errors.Is(err, seal.ErrBinding) {
			t.Errorf("%s changed: err = %v, want ErrBinding", name, err)
		}
	}
	r := s.Ring()
	a, b := seal.New(r, seal.WithAudience("a")), seal.New(r, seal.WithAudience("b"))
	if _, err := b.Open(call, mustSeal(t, a, call, "st")); !errors.Is(err, seal.ErrBinding) {
		t.Errorf("another audience: err = %v, want ErrBinding", err)
	}
}

func TestExpiry(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := seal.New(nil, seal.WithTTL(time.Minute), seal.WithClock(func() time.Time { return now }))
	sealed := mustSeal(t, s, call, "st")
	now = now.Add(time.Minute)
	if _, err := s.Open(call, sealed); err != nil {
		t.Fatalf("at the expiry: %v", err)
	}
	now = now.Add(time.Second)
	if _, err := s.Open(call, sealed); !errors.Is(err, seal.ErrExpired) {
		t.Fatalf("after the expiry: err = %v, want ErrExpired", err)
	}
}

func TestRotationAndReplicas(t *testing.T) {
	old := seal.New(ring(t, "k1:"+key(1)))
	// Two replicas share the rotated ring: k2 seals, k1 still opens.
	text := "# rotated\nk2:" + key(2) + "\n\nk1:" + key(1) + "\n"
	r1, r2 := seal.New(ring(t, text)), seal.New(ring(t, text))
	if got, err := r2.Open(call, mustSeal(t, old, call, "v1")); err != nil || got != "v1" {
		t.Fatalf("old key: %q, %v", got, err)
	}
	fresh := mustSeal(t, r1, call, "v2")
	if got, err := r2.Open(call, fresh); err != nil || got != "v2" {
		t.Fatalf("replica: %q, %v", got, err)
	}
	if _, err := old.Open(call, fresh); !errors.Is(err, seal.ErrUnknownKey) {
		t.Fatalf("a server without k2: err = %v, want ErrUnknownKey", err)
	}
	other := seal.New(ring(t, "k2:"+key(9)))
	if _, err := other.Open(call, fresh); !errors.Is(err, seal.ErrTampered) {
		t.Fatalf("another server's k2: err = %v, want ErrTampered", err)
	}
	if _, err := seal.New(nil).Open(call, fresh); !errors.Is(err, seal.ErrUnknownKey) {
		t.Fatalf("a per-process key: err = %v, want ErrUnknownKey", err)
	}
}

func TestParseKeyRing(t *testing.T) {
	url := base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{0xfb}, 32))
	r := ring(t, " a : "+key(1)+" , b:"+url+";c:"+strings.TrimRight(key(3), "="))
	if r.Current() != "a" || r.Len() != 3 {
		t.Fatalf("current %q, len %d", r.Current(), r.Len())
	}
	for _, bad := range []string{"", "# only\n", "a", "a:" + key(1) + "\na:" + key(2), "a:c2hvcnQ=", "a:!!!", "a b:" + key(1), ":" + key(1)} {
		if _, err := seal.ParseKeyRing([]byte(bad)); err == nil {
			t.Errorf("ParseKeyRing(%q) accepted", bad)
		} else if strings.Contains(err.Error(), key(1)) {
			t.Errorf("error shows the key: %v", err)
		}
	}
	if _, err := seal.NewKeyRing("x", map[string][]byte{"y": make([]byte, 32)}); err == nil {
		t.Error("NewKeyRing accepted a current key not in the ring")
	}
}

func TestTooLarge(t *testing.T) {
	s := seal.New(nil, seal.WithMaxState(8))
	if _, err := s.Seal(call, "123456789"); !errors.Is(err, seal.ErrTooLarge) {
		t.Fatalf("err = %v", err)
	}
	big := seal.New(s.Ring())
	if _, err := s.Open(call, mustSeal(t, big, call, strings.Repeat("x", 100))); !errors.Is(err, seal.ErrTampered) {
		t.Fatalf("Open of a sealed state over the bound: err = %v", err)
	}
}

func TestArgumentsDigest(t *testing.T) {
	same := [][]string{
		{``, `null`, `{}`, ` { } `},
		{`{"a":1,"b":[true,"x"]}`, "{ \"b\" : [ true , \"x\" ] ,\n \"a\" : 1 }"},
		{`{"n":12345678901234567890123}`, `{ "n": 12345678901234567890123 }`},
		{`{"a":1}`, `{"a":1.0}`, `{"a":10e-1}`}, // one number, as every consumer names it (core/wire)
	}
	for _, group := range same {
		for _, v := range group[1:] {
			if wire.ArgumentsDigest([]byte(v)) != wire.ArgumentsDigest([]byte(group[0])) {
				t.Errorf("%q and %q digest differently", v, group[0])
			}
		}
	}
	same = append(same, []string{`{"s":"\u00e9\/<"}`, `{"s":"é/<"}`}, []string{`[[1],{"b":2,"a":[]}]`, ` [ [1] , { "a" : [ ] , "b" : 2 } ] `})
	for _, group := range same[len(same)-2:] {
		if wire.ArgumentsDigest([]byte(group[0])) != wire.ArgumentsDigest([]byte(group[1])) {
			t.Errorf("%q and %q digest differently", group[0], group[1])
		}
	}
	differ := []string{`{"a":1}`, `{"a":2}`, `{"a":"1"}`, `{"a":1.5}`, `{"a":12345678901234567890124}`, `{"a":12345678901234567890123}`, `{"A":1}`, `[1]`, `{"a":1} x`,
		`[[1],2]`, `[[1,2]]`, `{"a":{"b":1}}`, `{"a":{},"b":1}`, `{"ab":""}`, `{"a":"b"}`}
	seen := map[[32]byte]string{}
	for _, v := range differ {
		d := wire.ArgumentsDigest([]byte(v))
		if prev, dup := seen[d]; dup {
			t.Errorf("%q and %q digest alike", v, prev)
		}
		seen[d] = v
	}
}

// Arguments that readers may read differently digest as their bytes: no
// reordering keeps the digest.
func TestArgumentsDigestAmbiguous(t *testing.T) {
	for _, pair := range [][2]string{
		{`{"env":"staging","ENV":"production"}`, `{"ENV":"production","env":"staging"}`},
		{`{"env":"staging","env":"production"}`, `{"env":"production","env":"staging"}`},
		{`{"o":{"k":1,"\u212a":2}}`, `{"o":{"\u212a":2,"k":1}}`}, // the Kelvin sign folds to k
	} {
		if wire.ArgumentsDigest([]byte(pair[0])) == wire.ArgumentsDigest([]byte(pair[1])) {
			t.Errorf("%s and %s digest alike", pair[0], pair[1])
		}
	}
}

// FuzzArgumentsDigest: arguments re-encoded by encoding/json (members
// sorted, escapes and spacing its own) digest as the original.
func FuzzArgumentsDigest(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,"x\n"],"b":{"c":null,"d":true}}`, `[]`, `"\u00e9"`, `{"z":-0.0,"y":1E2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		d := json.NewDecoder(strings.NewReader(in))
		d.UseNumber()
		var v any
		if !json.Valid([]byte(in)) || d.Decode(&v) != nil || !utf8.ValidString(in) || strings.Contains(in, "\\ud") || strings.Contains(in, "\\uD") {
			return
		}
		out, err := json.Marshal(v)
		if err != nil {
			return
		}
		got, want := wire.ArgumentsDigest([]byte(in)), wire.ArgumentsDigest(out)
		if got != want && !ambiguous(v, in) {
			t.Fatalf("%q and its re-encoding %q digest differently", in, out)
		}
	})
}

// ambiguous reports whether in may hold names equal but for case, which
// digest as bytes by design (a map loses them).
func ambiguous(_ any, in string) bool {
	var names []string
	dec := json.NewDecoder(strings.NewReader(in))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if s, ok := tok.(string); ok {
			names = append(names, s)
		}
	}
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			if strings.EqualFold(names[i], names[j]) {
				return true
			}
		}
	}
	return false
}

func FuzzOpen(f *testing.F) {
	s := seal.New(nil)
	one := mustSeal(f, s, call, "state")
	f.Add(one)
	f.Add("")
	f.Fuzz(func(t *testing.T, sealed string) {
		if got, err := s.Open(call, sealed); err == nil && (got != "state" || sealed != one) {
			t.Fatalf("opened a forged state or another spelling: %q", sealed)
		}
	})
}

func TestAllocations(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts are checked without -race")
	}
	s := seal.New(nil)
	sealed := mustSeal(t, s, call, "env=staging;step=2")
	_, _ = s.Open(call, sealed)
	if n := testing.AllocsPerRun(100, func() { _, _ = s.Seal(call, "env=staging;step=2") }); n > 1 {
		t.Errorf("Seal: %v allocations, want 1", n)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = s.Open(call, sealed) }); n > 1 {
		t.Errorf("Open: %v allocations, want 1", n)
	}
}
