//go:build unix

package recover_test

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/middleware"
	mcprecover "github.com/mcpguard/mcpguard/recover"
)

// TestCPUCost measures BenchmarkSuccessEncoded's variants in CPU time
// (getrusage), interleaved round by round with GOMAXPROCS=1 and the
// collector run between batches only: on a shared machine wall time
// varies by ±50% from scheduling alone, which hides a few percent either
// way. It reports and asserts nothing about time: run it with
//
//	MCPGUARD_CPUCOST=1 go test -run CPUCost -v ./recover
func TestCPUCost(t *testing.T) {
	if os.Getenv("MCPGUARD_CPUCOST") == "" {
		t.Skip("set MCPGUARD_CPUCOST=1 to measure")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	text := func() *mcp.CallToolResult {
		return mcp.NewToolResultText(`{"id":"P-1001","name":"Mechanical keyboard","price":129.0}`)
	}
	structured := func() *mcp.CallToolResult {
		p := benchProduct{ID: "P-1001", Name: "Mechanical keyboard", Price: 129.0, Tags: []string{"usb", "tkl"}}
		return mcp.NewToolResultStructured(p, `{"id":"P-1001","name":"Mechanical keyboard","price":129.0}`)
	}
	serve := func(build func() *mcp.CallToolResult, mws ...server.ToolHandlerMiddleware) *server.MCPServer {
		s := server.NewMCPServer("cpu", "1.0.0", server.WithToolCapabilities(false))
		if len(mws) > 0 {
			s.Use(mws...)
		}
		s.AddTool(mcp.NewTool("shop_get_product"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return build(), nil })
		return s
	}
	variants := []struct {
		name string
		s    *server.MCPServer
	}{
		{"text bare", serve(text)},
		{"text recover", serve(text, mcprecover.Middleware())},
		{"text default", serve(text, middleware.Default()...)},
		{"structured bare", serve(structured)},
		{"structured recover", serve(structured, mcprecover.Middleware())},
		{"structured default", serve(structured, middleware.Default()...)},
	}
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_get_product","arguments":{"product_id":"P-1001"}}}`)
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	ctx := context.Background()
	const rounds, n = 16, 4000
	per := make([][]float64, len(variants))
	for range rounds {
		for i, v := range variants {
			runtime.GC()
			start := cpu()
			for range n {
				if _, err := json.Marshal(v.s.HandleMessage(ctx, msg)); err != nil {
					t.Fatal(err)
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
	for i, v := range variants {
		m, bare := median(per[i]), median(per[i/3*3])
		t.Logf("%-20s %7.2f µs CPU/call  %.3f× bare", v.name, m/1000, m/bare)
	}
}
