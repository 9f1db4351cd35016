package limit_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
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

// TestRateMemoryIsBoundedInBytes sends 100,000 distinct keys of 1 KiB each
// to a Rate whose buckets refill once an hour, so that none is evicted:
// the heap may grow by at most DefaultMaxKeys × maxBytesPerKey, however
// long the keys. Before long keys were hashed it grew by the keys' bytes
// (about 125 MiB here).
func TestRateMemoryIsBoundedInBytes(t *testing.T) {
	if raceEnabled {
		t.Skip("heap measurements run without the race detector (.ci/run's allocation step)")
	}
	var calls atomic.Int64
	h := limit.Rate(rate.Every(time.Hour), 1, limit.WithKey(byName))(counting(&calls))
	ctx := context.Background()
	var req mcp.CallToolRequest
	pad := strings.Repeat("x", 1<<10)
	base := liveHeap()
	for i := range limit.DefaultMaxKeys {
		req.Params.Name = fmt.Sprintf("%s%07d", pad, i) // a fresh string each time
		_, _ = h(ctx, req)
	}
	grew := liveHeap() - base
	t.Logf("heap: %+d KiB for %d keys of 1 KiB (%d bytes a key), %d calls accepted", grew>>10, limit.DefaultMaxKeys, grew/limit.DefaultMaxKeys, calls.Load())
	// Shards fill at random: a few keys near the bound share the overflow
	// bucket.
	assert.Greater(t, calls.Load(), int64(limit.DefaultMaxKeys*98/100), "nearly every key got a bucket of its own")
	assert.Less(t, grew, int64(limit.DefaultMaxKeys*maxBytesPerKey), "memory grows with the keys' length")
	runtime.KeepAlive(h)
}

func byName(_ context.Context, req mcp.CallToolRequest) string { return req.Params.Name }

// TestRateMemoryForLongSessionIDsOverHTTP: 40 calls with distinct 512 KiB
// session IDs, on a stateless streamable HTTP server whose Rate keys by
// session (a KeyFunc of the user's own; DefaultKey no longer does), keep at
// most 40 × maxBytesPerKey, plus 4 MiB of slack for the server's and the
// client's own buffers.
// Before long keys were hashed Rate kept all 20 MiB of them.
func TestRateMemoryForLongSessionIDsOverHTTP(t *testing.T) {
	if raceEnabled {
		t.Skip("heap measurements run without the race detector (.ci/run's allocation step)")
	}
	bySession := func(ctx context.Context, _ mcp.CallToolRequest) string {
		if s := server.ClientSessionFromContext(ctx); s != nil {
			return s.SessionID()
		}
		return ""
	}
	var handled atomic.Int64
	s := server.NewMCPServer("shop", "0", server.WithToolCapabilities(false))
	s.Use(middleware.Default(middleware.WithLimits(limit.Rate(rate.Every(time.Hour), 1, limit.WithKey(bySession))))...)
	s.AddTool(tool, counting(&handled))
	ts := servertest.NewTestStreamableHTTPServer(s, server.WithStateLess(true))
	defer ts.Close()
	http.DefaultClient.CloseIdleConnections()

	const calls = 40
	base := liveHeap()
	for i := range calls {
		id := fmt.Sprintf("%07d%s", i, strings.Repeat("s", 512<<10))
		_, body := post(t, ts.URL+"/mcp", id, callBody)
		require.NotContains(t, body, `"isError":true`, "every session has a bucket of its own")
	}
	http.DefaultClient.CloseIdleConnections()
	grew := liveHeap() - base
	t.Logf("heap: %+d KiB after %d calls with 512 KiB session IDs", grew>>10, calls)
	assert.EqualValues(t, calls, handled.Load())
	assert.Less(t, grew, int64(calls*maxBytesPerKey+4<<20), "Rate keeps the session IDs' bytes")
	runtime.KeepAlive(s)
}
