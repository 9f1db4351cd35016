package redisstore_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/core/limit"
)

// TestHeldCallsNeverOutrunTheRateAcrossReplicas: a 2026-07-28 client
// bursts at twice the rate against two replicas of a Rate layer sharing
// one Redis, alternating between them. Held calls succeed (0 to 2 of 40
// refused in runs here, where a replica's retaken token went to the
// other one and the wait grew past the cap; about half without holding),
// and the handler never runs more often in any one-second
// window than the bucket allows (burst + rate), whichever replica held
// the call: a held call runs only once the store granted its token.
func TestHeldCallsNeverOutrunTheRateAcrossReplicas(t *testing.T) {
	const r, b, n = 10, 2, 40 // 40 calls at 20 a second: 2 s at twice the rate
	key := fmt.Sprintf("held-%d", time.Now().UnixNano())
	read := func(context.Context, string) limit.HoldCall { return limit.HoldCall{Modern: true} }
	var replicas [2]*limit.RateStage[string]
	for i := range replicas {
		o := limit.Evaluate(func(context.Context, string) string { return key },
			[]limit.Option[string]{limit.WithStore[string](open(t, shared))})
		replicas[i] = o.RateStage(rate.Limit(r), b, read)
	}
	var (
		mu            sync.Mutex
		ran           []time.Time
		refused, held atomic.Int64
		wg            sync.WaitGroup
	)
	tick := time.NewTicker(time.Second / (2 * r))
	defer tick.Stop()
	for i := range n {
		if i > 0 {
			<-tick.C
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, a, _ := replicas[i%2].Admit(context.Background(), "shop_search", "call")
			switch a {
			case limit.Admitted, limit.Held:
				mu.Lock()
				ran = append(ran, time.Now())
				mu.Unlock()
				if a == limit.Held {
					held.Add(1)
				}
			default:
				refused.Add(1)
			}
		}()
	}
	wg.Wait()
	slices.SortFunc(ran, time.Time.Compare)
	most := 0
	for i, start := range ran {
		k := 0
		for _, u := range ran[i:] {
			if u.Sub(start) < time.Second {
				k++
			}
		}
		most = max(most, k)
	}
	t.Logf("%d of %d held, %d refused; most runs in a second %d (bucket %d + %d)", held.Load(), n, refused.Load(), most, b, r)
	if held.Load() < n/4 {
		t.Errorf("%d of %d calls held: want the calls over the rate held", held.Load(), n)
	}
	if refused.Load() > n/8 { // without holding about half are
		t.Errorf("%d of %d refused: the replicas could have held them", refused.Load(), n)
	}
	if most > b+r+1 {
		t.Errorf("%d handler runs in one second across the replicas: faster than the rate", most)
	}
}
