package seal_test

import (
	"testing"

	"github.com/mcpguard/mcpguard/core/seal"
	"github.com/mcpguard/mcpguard/core/wire"
)

var state = "step=2;env=staging;order=8d1f3c"

func BenchmarkSeal(b *testing.B) {
	s := seal.New(nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Seal(call, state); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen(b *testing.B) {
	s := seal.New(nil)
	sealed := mustSeal(b, s, call, state)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Open(call, sealed); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkArgumentsDigest(b *testing.B) {
	args := []byte(`{"service":"api","replicas":3,"tags":["a","b"]}`)
	b.ReportAllocs()
	for b.Loop() {
		wire.ArgumentsDigest(args)
	}
}
