package limit_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/gosdk/limit"
)

// TestRateHoldsABurstOfAModernClient: a burst at twice the rate from
// go-sdk's own client, which negotiates 2026-07-28: without holding
// (WithHoldCap(0), the behaviour before this change) about half its
// calls are refused; with the default none is, and the handler never
// runs more often in a second than the bucket allows.
func TestRateHoldsABurstOfAModernClient(t *testing.T) {
	const r, b, n = 50, 5, 100
	for name, opts := range map[string][]limit.Option{"no hold": {limit.WithHoldCap(0)}, "default": nil} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var at []time.Time
			h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				mu.Lock()
				at = append(at, time.Now())
				mu.Unlock()
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			}
			cs := serve(t, h, []mcp.Middleware{limit.Rate(rate.Limit(r), b, opts...)}).ClientSession()
			require.Equal(t, "2026-07-28", cs.InitializeResult().ProtocolVersion)
			var refused, failed atomic.Int64
			var wg sync.WaitGroup
			tick := time.NewTicker(time.Second / (2 * r))
			defer tick.Stop()
			for i := range n {
				if i > 0 {
					<-tick.C
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
					switch {
					case err != nil:
						failed.Add(1)
					case res.IsError:
						refused.Add(1)
					}
				}()
			}
			wg.Wait()
			most := 0
			for i := range at {
				k := 0
				for _, u := range at[i:] {
					if u.Sub(at[i]) < time.Second {
						k++
					}
				}
				most = max(most, k)
			}
			t.Logf("%s: %d of %d refused, %d failed, most runs in a second %d", name, refused.Load(), n, failed.Load(), most)
			assert.Zero(t, failed.Load())
			if opts == nil {
				assert.LessOrEqual(t, refused.Load(), int64(n/50))
			} else {
				assert.GreaterOrEqual(t, refused.Load(), int64(n/4))
			}
			assert.LessOrEqual(t, most, b+r+1, "the handler ran faster than the rate")
		})
	}
}
