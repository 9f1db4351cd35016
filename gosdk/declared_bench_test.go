package gosdk_test

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
)

// declaredBench is a low-level tool with a realistic four-property
// declared schema, or one that declares no properties, and its call.
type declaredBench struct {
	name   string
	schema json.RawMessage
	params *mcp.CallToolParams
}

func declaredBenches() []declaredBench {
	return []declaredBench{
		{"four-properties", json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","maxLength":4096},
			"encoding":{"type":"string","enum":["utf-8","base64","hex"]},"max_bytes":{"type":"integer","minimum":1,"maximum":1048576},
			"follow_links":{"type":"boolean"}},"required":["path"]}`),
			&mcp.CallToolParams{Name: "fs_read_file", Arguments: map[string]any{"path": "docs/README.md", "encoding": "utf-8", "max_bytes": 65536, "follow_links": false}}},
		{"no-properties", json.RawMessage(`{"type":"object"}`), &mcp.CallToolParams{Name: "fs_read_file", Arguments: map[string]any{}}},
	}
}

var declaredBenchVariants = []struct {
	name string
	mw   []mcp.Middleware
}{
	{"bare", nil},
	{"middleware-without-declared", []mcp.Middleware{gosdk.Middleware(gosdk.WithoutDeclaredSchemas())}},
	{"middleware", []mcp.Middleware{gosdk.Middleware()}},
}

func declaredBenchSession(t testing.TB, schema json.RawMessage, mw []mcp.Middleware) *mcp.ClientSession {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench"}, nil)
	s.AddTool(&mcp.Tool{Name: "fs_read_file", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	for _, m := range mw {
		s.AddReceivingMiddleware(m)
	}
	return connect(t, s)
}

// BenchmarkDeclaredSchemas compares, in one run, a successful tools/call of
// a low-level tool through go-sdk's in-memory transport: bare, behind the
// Middleware without and with the declared-schema check.
//
//	go test -run '^$' -bench DeclaredSchemas -benchmem -count 6 ./gosdk | benchstat -col /variant -
func BenchmarkDeclaredSchemas(b *testing.B) {
	for _, bc := range declaredBenches() {
		for _, v := range declaredBenchVariants {
			b.Run("tool="+bc.name+"/variant="+v.name, func(b *testing.B) {
				cs := declaredBenchSession(b, bc.schema, v.mw)
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if res, err := cs.CallTool(ctx, bc.params); err != nil || res.IsError {
						b.Fatalf("call failed: %v %v", err, res)
					}
				}
			})
		}
	}
}

// TestDeclaredSchemasCPUCost is BenchmarkDeclaredSchemas in CPU time
// (getrusage), the variants interleaved round by round. It asserts
// nothing about time: MCPGUARD_CPUCOST=1 go test -run DeclaredSchemasCPUCost -v ./gosdk
func TestDeclaredSchemasCPUCost(t *testing.T) {
	if os.Getenv("MCPGUARD_CPUCOST") == "" {
		t.Skip("set MCPGUARD_CPUCOST=1 to measure")
	}
	if _, ok := processCPU(); !ok {
		t.Skip("this OS has no getrusage: CPU time cannot be measured")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	cpu := func() time.Duration { d, _ := processCPU(); return d }
	ctx := context.Background()
	const rounds, n = 10, 500
	for _, bc := range declaredBenches() {
		sessions := make([]*mcp.ClientSession, len(declaredBenchVariants))
		for i, v := range declaredBenchVariants {
			sessions[i] = declaredBenchSession(t, bc.schema, v.mw)
		}
		per := make([][]float64, len(sessions))
		for range rounds {
			for i, cs := range sessions {
				runtime.GC()
				start := cpu()
				for range n {
					if _, err := cs.CallTool(ctx, bc.params); err != nil {
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
		bare := median(per[0])
		for i, v := range declaredBenchVariants {
			m := median(per[i])
			t.Logf("%-16s %-28s %7.2f µs CPU/call  %5.3f× bare  %+6.2f µs", bc.name, v.name, m/1000, m/bare, (m-bare)/1000)
		}
	}
}
