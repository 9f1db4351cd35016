package safe_test

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/internal/safe"
)

type price struct {
	Amount   float64           `json:"amount"`
	Currency string            `json:"currency"`
	Tiers    []float32         `json:"tiers"`
	Labels   map[string]string `json:"labels"`
	Next     *price            `json:"-"` // recursive: never plain
}

type flat struct {
	ID     string
	Count  int
	Rates  map[string]float64
	Nested struct{ On bool }
	hidden float64
}

type marshals struct{}

func (marshals) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }

// PlainJSON says true only where encoding/json runs no code of the
// value's and cannot fail: every false here is a value a layer encodes
// itself, every true one the SDK may encode.
func TestPlainJSON(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		v    any
		want bool
	}{
		{"nil", nil, true},
		{"decoded JSON", map[string]any{"a": []any{1.5, "x", true, nil}}, true},
		{"NaN in decoded JSON", map[string]any{"a": []any{nan}}, false},
		{"valid raw", json.RawMessage(`{"a":1}`), true},
		{"invalid raw", json.RawMessage(`{"a":`), false},
		{"flat struct", flat{ID: "x", Rates: map[string]float64{"a": 1}}, true},
		{"pointer to flat struct", &flat{}, true},
		{"NaN in a map field", flat{Rates: map[string]float64{"a": nan}}, false},
		{"NaN in an unexported field", flat{hidden: nan}, false}, // conservative: encoded, not sent wrong
		{"recursive type", price{Amount: 1}, false},
		{"MarshalJSON", marshals{}, false},
		{"MarshalJSON in a slice", []marshals{{}}, false},
		{"time.Time (MarshalJSON)", time.Time{}, false},
		{"interface field", struct{ V any }{1}, false},
		{"json.Number", struct{ N json.Number }{"1"}, false},
		{"channel", make(chan int), false},
		{"infinite float slice", []float64{math.Inf(1)}, false},
		{"string slice", []string{"a"}, true},
		{"deep decoded JSON", deep(40), false},
	}
	for _, tc := range cases {
		if got := safe.PlainJSON(tc.v); got != tc.want {
			t.Errorf("%s: PlainJSON = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func deep(n int) any {
	var v any = "leaf"
	for range n {
		v = []any{v}
	}
	return v
}

// A typed value that is plain costs a cached type look-up and a walk of
// its floats, and no allocation.
func TestPlainJSONOfAStructDoesNotAllocate(t *testing.T) {
	v := any(flat{ID: "x", Count: 2})
	safe.PlainJSON(v)
	if n := testing.AllocsPerRun(100, func() { safe.PlainJSON(v) }); n != 0 {
		t.Errorf("PlainJSON allocates %v times", n)
	}
}

func TestRawValuesCopiesOnlyWhatItMustEncode(t *testing.T) {
	m := map[string]any{"a": 1, "b": flat{}}
	if out, changed, err := safe.RawValues(m); err != nil || changed || len(out) != 2 {
		t.Fatalf("plain values: %v %v %v", out, changed, err)
	}
	m["c"] = marshals{}
	out, changed, err := safe.RawValues(m)
	if err != nil || !changed || string(out["c"].(json.RawMessage)) != "1" {
		t.Fatalf("a MarshalJSON value: %v %v %v", out, changed, err)
	}
	if _, ok := m["c"].(marshals); !ok {
		t.Fatal("the caller's map was modified")
	}
}
