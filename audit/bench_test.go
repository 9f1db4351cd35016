package audit_test

import (
	"context"
	"testing"

	"github.com/mcpguard/mcpguard/audit"
)

func BenchmarkTools(b *testing.B) {
	for _, file := range []string{"testdata/v1.7.0.json", "testdata/v1.9.0.json"} {
		tl := loadTools(b, file)
		b.Run(file[len("testdata/"):], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				audit.Tools(tl)
			}
		})
	}
}

func BenchmarkServerProbe(b *testing.B) {
	s := goodServer(&calls{})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := audit.Server(context.Background(), s, audit.WithProbe()); err != nil {
			b.Fatal(err)
		}
	}
}
