package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/rueidis"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/redisstore"
)

// allowAll is a limit no benchmark exhausts: every decision is an
// allowed call, the success path.
const allowAll = rate.Limit(1e9)

// BenchmarkAllowedDecision: an allowed call's decision through the
// in-process store and through Redis on loopback, side by side; the
// difference is the Redis round trip.
func BenchmarkAllowedDecision(b *testing.B) {
	ctx := context.Background()
	stores := []struct {
		name  string
		store limit.Store
	}{{"memory", limit.MemoryStore(limit.DefaultMaxKeys)}, {"redis", openB(b)}}
	for _, s := range stores {
		// A deadline missed on a loaded machine would measure a decision
		// without the store, and a reconnection.
		l := limit.NewShared(s.store, allowAll, 1e9, limit.StoreOptions{Timeout: time.Second})
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := l.Allow(ctx, "", "principal\x00alice"); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(s.name+"/parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(25) // 50 callers on 2 cores
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := l.Allow(ctx, "", "principal\x00alice"); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkPing is one loopback round trip to the same Redis with the
// client options Open uses, PING: what a decision through Redis is
// expected to add to one in process.
func BenchmarkPing(b *testing.B) {
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{shared.Addr}, DisableCache: true, AlwaysPipelining: true})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Do(ctx, c.B().Ping().Build()).Error(); err != nil {
			b.Fatal(err)
		}
	}
}

func openB(b *testing.B) limit.Store {
	s, err := redisstore.Open(shared.URL())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	return s
}

// TestAllowedDecisionAllocs bounds the allocations of an allowed call
// through the Redis store: the key's name, and a share of the deadline's
// context; rueidis pools its commands and answers.
func TestAllowedDecisionAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what escapes")
	}
	s, err := redisstore.Open(shared.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// A deadline missed on a loaded machine would measure a reconnection,
	// not the success path.
	l := limit.NewShared(s, allowAll, 1e9, limit.StoreOptions{Timeout: time.Minute})
	ctx := context.Background()
	for range 100 {
		_ = l.Allow(ctx, "", "principal\x00alice")
	}
	allocs := testing.AllocsPerRun(200, func() {
		if err := l.Allow(ctx, "", "principal\x00alice"); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("allocations per allowed decision through Redis: %v", allocs)
	if allocs > 3 {
		t.Errorf("an allowed decision through Redis allocates %v times, want at most 3", allocs)
	}
}
