package gosdk_test

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
)

// TestCPUCost measures what BenchmarkToolCall and BenchmarkAddTool do in
// CPU time (getrusage: the client's and the server's goroutines, both in
// this process) rather than wall time, interleaving the variants round by
// round with GOMAXPROCS=1 and the collector run between batches. Wall time through the in-memory transport
// varies by ±25% from one run to the next with goroutine scheduling alone,
// which hides a few percent either way; CPU time does not. It reports and
// asserts nothing about time: run it with
//
//	MCPGUARD_CPUCOST=1 go test -run CPUCost -v ./gosdk
func TestCPUCost(t *testing.T) {
	if os.Getenv("MCPGUARD_CPUCOST") == "" {
		t.Skip("set MCPGUARD_CPUCOST=1 to measure")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	// go-sdk allocates about 480 KB per call, so the collector's timing
	// is most of the spread: it runs between batches only (a batch of 1,000
	// calls peaks near 500 MB).
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	type variant struct {
		name   string
		cs     *mcp.ClientSession
		params *mcp.CallToolParams
	}
	get := &mcp.CallToolParams{Name: "shop_get", Arguments: map[string]any{"id": "p-1"}}
	order := &mcp.CallToolParams{Name: "order", Arguments: orderCall}
	server := func(guarded bool, add func(*mcp.Server)) *mcp.ClientSession {
		s := mcp.NewServer(&mcp.Implementation{Name: "cpu"}, nil)
		if guarded {
			s.AddReceivingMiddleware(gosdk.Middleware())
		}
		add(s)
		return connect(t, s)
	}
	addGet := func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "shop_get", Description: "Get a product by ID."}, getProduct)
	}
	variants := []variant{
		{"tools/call bare go-sdk", server(false, addGet), get},
		{"tools/call + gosdk.Middleware", server(true, addGet), get},
		{"mcp.AddTool (go-sdk's)", server(false, func(s *mcp.Server) { mcp.AddTool(s, &mcp.Tool{Name: "order"}, placeOrder) }), order},
		{"gosdk.AddTool", server(false, func(s *mcp.Server) { gosdk.AddTool(s, &mcp.Tool{Name: "order"}, placeOrder) }), order},
	}
	if _, ok := processCPU(); !ok {
		t.Skip("this OS has no getrusage: CPU time cannot be measured")
	}
	cpu := func() time.Duration { d, _ := processCPU(); return d }
	ctx := context.Background()
	const rounds, n = 20, 1000
	per := make([][]float64, len(variants))
	for range rounds {
		for i, v := range variants {
			runtime.GC()
			start := cpu()
			for range n {
				if res, err := v.cs.CallTool(ctx, v.params); err != nil || res.IsError {
					t.Fatalf("%s: %v %+v", v.name, err, res)
				}
			}
			per[i] = append(per[i], float64(cpu()-start)/n)
		}
	}
	median := func(xs []float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	spread := func(xs []float64) (lo, hi float64) {
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[0], s[len(s)-1]
	}
	for i, v := range variants {
		m := median(per[i])
		lo, hi := spread(per[i])
		if i%2 == 1 {
			t.Logf("%-32s %8.1f µs CPU/call (min %.1f, max %.1f)  %.3f× %s", v.name, m/1000, lo/1000, hi/1000, m/median(per[i-1]), variants[i-1].name)
			continue
		}
		t.Logf("%-32s %8.1f µs CPU/call (min %.1f, max %.1f)", v.name, m/1000, lo/1000, hi/1000)
	}
}
