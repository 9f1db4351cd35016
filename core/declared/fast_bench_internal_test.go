package declared

import (
	"context"
	"testing"
)

// BenchmarkFastPath measures the fast path for flat schemas (fast.go)
// against the JSON Schema library it shortcuts, on a valid call of a
// four-property declared schema, in one run:
//
//	go test -run '^$' -bench FastPath -benchmem -count 6 ./core/declared | benchstat -col /flat -
func BenchmarkFastPath(b *testing.B) {
	schema := `{"type":"object","properties":{
		"path":{"type":"string","pattern":"^[a-z/]+\\.txt$","maxLength":200},
		"mode":{"type":"string","enum":["read","stat"]},
		"limit":{"type":"integer","minimum":1,"maximum":50},
		"all":{"type":"boolean"}},"required":["path"]}`
	raw := []byte(`{"path":"docs/notes.txt","mode":"read","limit":20,"all":true}`)
	ctx := context.Background()
	for _, flat := range []bool{true, false} {
		b.Run("declared/flat="+map[bool]string{true: "fast", false: "library"}[flat], func(b *testing.B) {
			d := New("t", []byte(schema))
			if !flat {
				d.flat = nil
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.Check(ctx, raw, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
