package declared

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func jsonschemaUnmarshal(s string) (any, error) {
	return jsonschema.UnmarshalJSON(strings.NewReader(s))
}

// TestDeclaredFastPathAgreesWithTheLibrary: whatever the fast path calls
// valid, the library validates, on generated arguments of the shapes mcp-go
// and go-sdk decode (float64 and json.Number), edge values included. The
// fast path must also take most valid calls, or it is not one.
func TestDeclaredFastPathAgreesWithTheLibrary(t *testing.T) {
	t.Parallel()
	schemas := []string{
		`{"type":"object","properties":{"path":{"type":"string","minLength":1,"maxLength":8},"mode":{"type":"string","enum":["text","binary"]},
			"limit":{"type":"integer","minimum":1,"maximum":100},"ratio":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},
			"follow":{"type":"boolean"}},"required":["path"]}`,
		`{"type":"object","properties":{"id":{"type":"string","pattern":"^[a-z]{2}-[0-9]+$"},"n":{"type":"number","minimum":-2.5,"maximum":2.5}},"additionalProperties":false}`,
		`{"type":"object","properties":{"a":{"type":"integer","exclusiveMinimum":0,"minimum":-5},"b":{"type":"integer","maximum":10,"exclusiveMaximum":3}}}`,
		// Equal inclusive and exclusive bounds (exclusive wins), a
		// minimum length with no maximum, and a maximum length of 0.
		`{"type":"object","properties":{"a":{"type":"integer","minimum":3,"exclusiveMinimum":3},"b":{"type":"number","maximum":3,"exclusiveMaximum":3},
			"path":{"type":"string","minLength":2},"mode":{"type":"string","maxLength":0}}}`,
	}
	values := []any{nil, true, false, "", "a", "text", "Text", "héllo", strings.Repeat("x", 9), "ab-12", "ab-", "5",
		0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 2.5000001, 3.0, 10.0, 100.0, 100.5, 101.0, 1e300,
		json.Number("0"), json.Number("1"), json.Number("100"), json.Number("101"), json.Number("-5"), json.Number("3"),
		json.Number("1.0"), json.Number("1e2"), json.Number("99999999999999999999"), json.Number("0.5"),
		[]any{}, map[string]any{}}
	keys := []string{"path", "mode", "limit", "ratio", "follow", "id", "n", "a", "b", "other"}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, schema := range schemas {
		d := New("t", []byte(schema))
		if d.flat == nil {
			t.Fatalf("not flat: %s", schema)
		}
		fast := 0
		for range 20000 {
			doc := map[string]any{}
			for _, k := range keys {
				if rng.IntN(3) == 0 {
					doc[k] = values[rng.IntN(len(values))]
				}
			}
			if raw, err := json.Marshal(doc); err == nil && d.flat.fast(raw, nil) {
				fast++
				agrees(t, d, string(raw))
			}
			if !d.flat.fast(nil, doc) {
				continue
			}
			fast++
			if err := d.library(doc); err != nil {
				t.Fatalf("%s\nthe fast path accepts %v, the library refuses it: %v", schema, doc, err)
			}
		}
		if fast == 0 {
			t.Errorf("the fast path accepts nothing for %s", schema)
		}
	}
}

func TestDeclaredFastPathLeavesTheRestToTheLibrary(t *testing.T) {
	t.Parallel()
	for _, schema := range []string{
		`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}}}`,
		`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`,
		`{"type":"object","properties":{"a":{"type":"integer","multipleOf":3}}}`,
		`{"type":"object","properties":{"a":{"type":"number","maximum":0.1}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":{"enum":[1,2]}}}`,
		`{"type":"object","minProperties":1}`,
	} {
		if d := New("t", []byte(schema)); d.sch == nil || d.flat != nil {
			t.Errorf("%s: compiled %v, flat %v", schema, d.sch != nil, d.flat != nil)
		}
	}
}

// agrees fails unless the library accepts raw, which the raw fast path
// accepted.
func agrees(t *testing.T, d *Checker, raw string) {
	t.Helper()
	doc, err := jsonschemaUnmarshal(raw)
	if err != nil {
		t.Fatalf("the raw fast path accepts %s, which is not JSON: %v", raw, err)
	}
	if err := d.library(doc); err != nil {
		t.Fatalf("the raw fast path accepts %s, the library refuses it: %v", raw, err)
	}
}

// TestDeclaredRawFastPathEdges: texts the raw fast path must leave to the
// library, or may accept only where the library does.
func TestDeclaredRawFastPathEdges(t *testing.T) {
	t.Parallel()
	d := New("t", []byte(`{"type":"object","properties":{"n":{"type":"number","maximum":2.5,"minimum":-2.5},
		"i":{"type":"integer","maximum":100},"s":{"type":"string","maxLength":3,"enum":["a","é","abc"]}},"required":["s"]}`))
	for _, raw := range []string{
		`{"s":"a","n":2.5000000000000001}`, `{"s":"a","n":2.4999999999999999}`, `{"s":"a","n":-2.5000000000000001}`,
		`{"s":"a","i":100.0}`, `{"s":"a","i":1e2}`, `{"s":"a","i":100000000000000000000}`, `{"s":"a","i":9007199254740993}`,
		`{"s":"a","s":"zzzz"}`, `{"s":"\u0061"}`, `{"s":"é"}`, `{"s":"abc","n":1e-400}`, `{"s":"a","n":1e400}`,
		`{"s":"a"} x`, `{"s":"a",}`, `{"s":"a","x":{"deep":[1]}}`, ` { "s" : "abc" , "i" : -7 } `,
	} {
		if d.flat.fast([]byte(raw), nil) {
			agrees(t, d, raw)
		}
		// Whatever the fast path says, Check's answer is the library's.
		_, err := d.Check(t.Context(), []byte(raw), nil, nil)
		doc, jerr := jsonschemaUnmarshal(raw)
		libOK := jerr == nil && d.library(doc) == nil
		if (err == nil) != libOK {
			t.Errorf("%s: Check error %v, library accepts %v", raw, err, libOK)
		}
	}
}

// FuzzDeclaredCheck: on any argument text, Check never panics, agrees with
// the library when it accepts the text unchanged, and answers a failure
// with a bounded envelope.
func FuzzDeclaredCheck(f *testing.F) {
	d := New("t", []byte(`{"type":"object","properties":{"path":{"type":"string","maxLength":8,"pattern":"^[a-z/]+$"},
		"mode":{"type":"string","enum":["text","binary"]},"limit":{"type":"integer","minimum":1,"maximum":100},
		"ratio":{"type":"number","exclusiveMaximum":1},"follow":{"type":"boolean"}},"required":["path"],"additionalProperties":false}`))
	for _, s := range []string{`{"path":"a"}`, `{"path":"a","limit":"5"}`, `{"path":null}`, `[]`, `{"path":"a","ratio":0.9999999999999999999}`, `{"path":"\u0061"}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		converted, err := d.Check(t.Context(), raw, nil, nil)
		if err != nil {
			if b, _ := json.Marshal(err.Error()); len(b) > 24<<10 {
				t.Fatalf("a %d-byte failure", len(b))
			}
			return
		}
		if converted != nil {
			raw = converted
		}
		if len(raw) == 0 || string(raw) == "null" {
			return
		}
		doc, jerr := jsonschemaUnmarshal(string(raw))
		if jerr != nil {
			t.Fatalf("accepted %q, which is not JSON: %v", raw, jerr)
		}
		if verr := d.library(doc); verr != nil {
			t.Fatalf("accepted %q, which the library refuses: %v", raw, verr)
		}
	})
}

// edgeSchema declares every keyword the fast path reads, each with a bound
// a valid call can sit on.
const edgeSchema = `{"type":"object","properties":{
	"s":{"type":"string","minLength":2,"maxLength":4},
	"m":{"type":"string","minLength":1},
	"z":{"type":"string","maxLength":0},
	"e":{"type":"string","enum":["a","b"]},
	"p":{"type":"string","pattern":"^x+$"},
	"i":{"type":"integer","minimum":-3,"maximum":5},
	"x":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},
	"n":{"type":"number"},
	"big":{"type":"integer","minimum":-9007199254740992,"maximum":9007199254740992},
	"b":{"type":"boolean"}},"required":["s"]}`

// TestDeclaredFastPathTakesEveryValidCallOfItsShape: a valid call of a
// flat schema, on every bound it can sit on, is recognized by the fast
// path, decoded as mcp-go decodes it (float64, or json.Number for an
// integer) and as the
// JSON text go-sdk hands over. One it missed would still be answered
// right, by the library, at the allocations TestDeclaredSuccessAllocations
// forbids: this is that promise, value by value.
func TestDeclaredFastPathTakesEveryValidCallOfItsShape(t *testing.T) {
	t.Parallel()
	d := New("t", []byte(edgeSchema))
	if d.flat == nil {
		t.Fatal("not flat")
	}
	for _, raw := range []string{
		`{"s":"ab"}`, `{"s":"abcd"}`, `{"s":"éé"}`, `{"s":"ab","m":"q"}`, `{"s":"ab","z":""}`,
		`{"s":"ab","e":"b"}`, `{"s":"ab","p":"xx"}`, `{"s":"ab","i":-3}`, `{"s":"ab","i":5}`, `{"s":"ab","i":0}`,
		`{"s":"ab","x":0.5}`, `{"s":"ab","x":0.000001}`, `{"s":"ab","n":-1e300}`, `{"s":"ab","n":12345}`, `{"s":"ab","n":-7}`,
		`{"s":"ab","n":2.5}`, `{"s":"ab","big":9007199254740992}`, `{"s":"ab","big":-9007199254740992}`,
		`{"s":"ab","big":1234567890123456}`, `{"s":"ab","b":false}`, `{"s":"ab","b":true}`,
		` { "s" : "abc" , "i" : 1 , "b" : true } `,
	} {
		agrees(t, d, raw)
		if !d.flat.fast([]byte(raw), nil) {
			t.Errorf("%s: the raw fast path leaves a valid call to the library", raw)
		}
		var floats any
		if err := json.Unmarshal([]byte(raw), &floats); err != nil {
			t.Fatal(err)
		}
		numbers, err := jsonschemaUnmarshal(raw) // json.Number
		if err != nil {
			t.Fatal(err)
		}
		docs := []any{floats}
		if !strings.Contains(raw, ".") && !strings.Contains(raw, "1e") {
			docs = append(docs, numbers) // a json.Number fraction is the library's (exactNumber)
		}
		for _, doc := range docs {
			if !d.flat.fast(nil, doc) {
				t.Errorf("%s: the fast path leaves a valid call decoded as %T to the library", raw, doc.(map[string]any)["s"])
			}
		}
	}
	// An undeclared scalar member, which the open schema allows, is read
	// on the decoded path; as text, it is the library's.
	if !d.flat.fast(nil, map[string]any{"s": "ab", "other": 1.0}) {
		t.Error("an undeclared scalar member is left to the library")
	}
}

// TestDeclaredFastPathTakesSixtyFourProperties: a call is tracked by one
// bit per property, so up to 64 properties the raw fast path answers.
func TestDeclaredFastPathTakesSixtyFourProperties(t *testing.T) {
	t.Parallel()
	props := make([]string, 64)
	for i := range props {
		props[i] = fmt.Sprintf(`"p%02d":{"type":"integer"}`, i)
	}
	d := New("t", []byte(`{"type":"object","properties":{`+strings.Join(props, ",")+`},"required":["p63"]}`))
	if raw := `{"p63":1,"p00":2}`; d.flat == nil || !d.flat.fast([]byte(raw), nil) {
		t.Errorf("a schema of 64 properties: %s left to the library", raw)
	}
}

// TestDeclaredFastPathNeverRoundsOntoABound: integers past 2⁵³ are not
// compared rounded (9007199254740993 would round onto a maximum of
// 9007199254740992 and pass), decoded as json.Number or sent as text.
func TestDeclaredFastPathNeverRoundsOntoABound(t *testing.T) {
	t.Parallel()
	d := New("t", []byte(`{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740992,"minimum":-9007199254740992}}}`))
	for _, n := range []string{"9007199254740993", "-9007199254740993", "9007199254740994"} {
		raw := `{"n":` + n + `}`
		doc, _ := jsonschemaUnmarshal(raw)
		if d.flat.fast(nil, doc) || d.flat.fast(nil, map[string]any{"n": json.Number(n)}) || d.flat.fast([]byte(raw), nil) {
			t.Errorf("%s: the fast path accepts a value above the maximum", n)
		}
		if _, err := d.Check(t.Context(), []byte(raw), map[string]any{"n": json.Number(n)}, nil); err == nil {
			t.Errorf("%s: Check accepts a value above the maximum", n)
		}
	}
}

// library is the library's verdict on doc, within a fresh pattern budget.
func (d *Checker) library(doc any) error {
	if verr := d.validate(doc); verr != nil {
		return verr
	}
	return nil
}
