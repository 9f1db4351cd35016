package limit_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/gosdk/limit"
)

// maxBytesPerKey is a generous bound on what one bucket may cost, key
// included, whatever the key: a bucket, its limiter, its map slot and at
// most 64 bytes of key take about half of it.
const maxBytesPerKey = 512

func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

func byName(_ context.Context, req *mcp.CallToolRequest) string { return req.Params.Name }

// TestRateMemoryIsBoundedInBytes sends 100,000 distinct keys of 1 KiB each
// to a Rate whose buckets refill once an hour, so that none is evicted:
// the heap may grow by at most DefaultMaxKeys × maxBytesPerKey, however
// long the keys (keeping them would take about 100 MiB).
func TestRateMemoryIsBoundedInBytes(t *testing.T) {
	if raceEnabled {
		t.Skip("heap measurements run without the race detector (.ci/run's allocation step)")
	}
	calls := 0
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) {
		calls++
		return &mcp.CallToolResult{}, nil
	}
	h := limit.Rate(rate.Every(time.Hour), 1, limit.WithKey(byName))(next)
	ctx := context.Background()
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{}}
	pad := strings.Repeat("x", 1<<10)
	base := liveHeap()
	for i := range limit.DefaultMaxKeys {
		req.Params.Name = fmt.Sprintf("%s%07d", pad, i) // a fresh string each time
		_, _ = h(ctx, "tools/call", req)
	}
	grew := liveHeap() - base
	t.Logf("heap: %+d KiB for %d keys of 1 KiB (%d bytes a key), %d calls accepted", grew>>10, limit.DefaultMaxKeys, grew/limit.DefaultMaxKeys, calls)
	if calls < limit.DefaultMaxKeys*98/100 {
		t.Errorf("only %d of %d keys got a bucket of their own", calls, limit.DefaultMaxKeys)
	}
	if grew > limit.DefaultMaxKeys*maxBytesPerKey {
		t.Errorf("heap grew by %d bytes for %d keys: memory grows with the keys' length", grew, limit.DefaultMaxKeys)
	}
	runtime.KeepAlive(h)
}
