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
