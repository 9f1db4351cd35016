package validate

import (
	"encoding/json"
	"math/big"
	"reflect"
	"strings"
	"testing"
)

// BenchmarkFastPaths measures, in one run, each code path that exists
// for speed alone against the path it shortcuts, on the call it serves:
//
//   - bind.go's pre-scan: binding a valid call, scan then decode, against
//     the path that explains (slowBind) taken for every call;
//
//   - numbers.go's decimal: an integer bound check on a 400-digit and a
//     10,000-digit number, against math/big.
//
// (core/declared's BenchmarkFastPath measures its fast path.)
//
//	go test -run '^$' -bench FastPaths -benchmem ./core/validate
func BenchmarkFastPaths(b *testing.B) {
	raw := []byte(`{"path":"docs/notes.txt","mode":"read","limit":20,"all":true}`)
	type args struct {
		Path  string `json:"path" validate:"required,max=200"`
		Mode  string `json:"mode,omitempty" validate:"omitempty,oneof=read stat"`
		Limit int    `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
		All   bool   `json:"all,omitempty"`
	}
	o := evaluate(nil)
	p := planFor(reflect.TypeFor[args](), Default())
	for _, v := range []struct {
		name string
		bind func() bindResult
	}{
		{"bind/scan+Unmarshal", func() bindResult { return p.bind(raw, new(args), &o) }},
		{"bind/slowBind", func() bindResult { return p.slowBind(raw, new(args), &o) }},
	} {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if r := v.bind(); len(r.fields) > 0 {
					b.Fatal(r.fields)
				}
			}
		})
	}
	ti := &typeInfo{kind: kInt, bits: 64}
	for _, digits := range []int{400, 10_000} {
		n := "1" + strings.Repeat("0", digits-1)
		b.Run("integer/digits="+itoa(digits)+"/decimal", func(b *testing.B) {
			for b.Loop() {
				if _, rule, _, _ := integer(n, ti); rule != "max" {
					b.Fatal(rule)
				}
			}
		})
		b.Run("integer/digits="+itoa(digits)+"/math-big", func(b *testing.B) {
			lim := big.NewInt(1<<63 - 1)
			for b.Loop() {
				var x big.Int
				if _, ok := x.SetString(n, 10); !ok || x.Cmp(lim) <= 0 {
					b.Fatal("not above")
				}
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
