package validate

import (
	"encoding/json"
	"reflect"
	"testing"
)

type flatLevel string

func (l *flatLevel) UnmarshalText(b []byte) error { *l = flatLevel("level:" + string(b)); return nil }

type flatArgs struct {
	S   string   `json:"s"`
	PS  *string  `json:"ps,omitempty"`
	B   bool     `json:"b,omitempty"`
	I8  int8     `json:"i8,omitempty"`
	I   int      `json:"i,omitempty"`
	PI  *int64   `json:"pi,omitempty"`
	U16 uint16   `json:"u16,omitempty"`
	U   uint     `json:"u,omitempty"`
	F32 float32  `json:"f32,omitempty"`
	F   float64  `json:"f,omitempty"`
	PF  *float64 `json:"pf,omitempty"`
}

// FuzzDecodeFlat holds the fast decoder to encoding/json: whatever it
// accepts, json.Unmarshal accepts too, into the same value.
func FuzzDecodeFlat(f *testing.F) {
	for _, s := range []string{
		`{"s":"x","ps":"y","b":true,"i8":-128,"i":9007199254740993,"pi":null,"u16":65535,"u":1,"f32":3.4e38,"f":-0.0,"pf":1e-400}`,
		`{"s":"\u00e9"}`, `{"s":"a","s":"b"}`, `{"i8":128}`, `{"u":-0}`, `{"f":01}`, `{"s":"\xff"}`, `{"f":1e400}`, ` { "s" : "" } `,
		`{"i":1.0}`, `{"i":1e2}`, `{"b":nul}`, `{"pf":null,"pf":2}`, `{}`, `{"S":"x"}`,
		// Truncated or outside the grammar: the declared fast path reads
		// text no scanner has checked.
		`{"f":1.}`, `{"f":1.e5}`, `{"f":1e}`, `{"f":-}`, `{"s":"abc`, `{"s":`, `{"b":tru`, `{"b":true`, `{"u":-1}`, `{"i":1`,
	} {
		f.Add([]byte(s))
	}
	fields := flatPlan(buildType(reflect.TypeFor[flatArgs](), map[reflect.Type]bool{}))
	if fields == nil {
		f.Fatal("flatArgs has no fast plan")
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var fast, std flatArgs
		if !decodeFlat(raw, reflect.ValueOf(&fast).UnsafePointer(), fields) {
			return
		}
		if err := json.Unmarshal(raw, &std); err != nil {
			t.Fatalf("%s: the fast decoder accepts what encoding/json refuses: %v", raw, err)
		}
		if !reflect.DeepEqual(fast, std) {
			t.Fatalf("%s: fast %+v, encoding/json %+v", raw, fast, std)
		}
	})
}

func TestNoFastPlanForCustomDecoding(t *testing.T) {
	type args struct {
		L flatLevel `json:"l"`
	}
	if flatPlan(buildType(reflect.TypeFor[args](), map[reflect.Type]bool{})) != nil {
		t.Fatal("a type with UnmarshalText must be decoded by encoding/json")
	}
	if flatPlan(buildType(reflect.TypeFor[selfDecoding](), map[reflect.Type]bool{})) != nil {
		t.Fatal("a struct with UnmarshalJSON must be decoded by encoding/json")
	}
}

type selfDecoding struct {
	S string `json:"s"`
}

func (s *selfDecoding) UnmarshalJSON(b []byte) error { s.S = "custom"; return nil }

// TestDecodeFlatTakesEveryPlainObject: what the fast decoder is for, it
// decodes itself, into what encoding/json gives: an object of plain
// members, every kind and width at its edges, spaces and non-ASCII text
// included. One it left to json.Unmarshal would still bind right, at the
// reflection and allocations the fast path exists to save.
func TestDecodeFlatTakesEveryPlainObject(t *testing.T) {
	t.Parallel()
	fields := flatPlan(buildType(reflect.TypeFor[flatArgs](), map[reflect.Type]bool{}))
	for _, raw := range []string{
		`{}`, ` { } `, `{"s":"a b ~ c"}`, `{"s":"héllo wörld"}`, `{"s":""}`, `{"ps":"x"}`, `{"ps":null}`,
		`{"b":true}`, `{"b":false}`, `{"i8":-128}`, `{"i8":127}`, `{"i":10}`, `{"i":-100}`, `{"i":0}`, `{"pi":7}`,
		`{"u16":65535}`, `{"u16":0}`, `{"u":10}`, `{"u":18446744073709551615}`, `{"f32":1.5}`, `{"f":1.05e+10}`,
		`{"f":0.0}`, `{"f":-2E-3}`, `{"f":90}`, `{"pf":0.25}`,
		`{"s":"x","b":true,"i":1,"u":2,"f":3.5}`, "{\n\t\"s\" : \"x\" ,\r\n\"i\":\t5\n}",
	} {
		var fast, std flatArgs
		if err := json.Unmarshal([]byte(raw), &std); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if !decodeFlat([]byte(raw), reflect.ValueOf(&fast).UnsafePointer(), fields) {
			t.Errorf("%s: left to encoding/json", raw)
			continue
		}
		if !reflect.DeepEqual(fast, std) {
			t.Errorf("%s: fast %+v, encoding/json %+v", raw, fast, std)
		}
	}
}
