package validate_test

import (
	"context"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/validate"
)

// BenchmarkDeclaredSchemas compares, in one run, a successful tools/call
// through HandleMessage of a tool with a realistic four-property declared
// schema, and of one that declares no properties: bare mcp-go, mcp-go with
// WithInputSchemaValidation, Default without and with the declared-schema
// layer, and the layer alone.
//
//	go test -run '^$' -bench DeclaredSchemas -benchmem -count 6 ./validate | benchstat -col /variant -
func BenchmarkDeclaredSchemas(b *testing.B) {
	for _, t := range declaredBenchTools() {
		for _, v := range declaredBenchVariants() {
			b.Run("tool="+t.name+"/variant="+v.name, func(b *testing.B) {
				s := v.server(t.tool)
				ctx := context.Background()
				_ = s.HandleMessage(ctx, t.msg) // compile once, outside the loop
				b.ReportAllocs()
				for b.Loop() {
					_ = s.HandleMessage(ctx, t.msg)
				}
			})
		}
	}
}

// TestDeclaredSchemasCPUCost measures what BenchmarkDeclaredSchemas does
// in CPU time (getrusage), the variants interleaved round by round, so
// that a machine shared with other work still gives usable ratios. It
// asserts nothing about time: run it with
// MCPGUARD_CPUCOST=1 go test -run DeclaredSchemasCPUCost -v ./validate.
func TestDeclaredSchemasCPUCost(t *testing.T) {
	if os.Getenv("MCPGUARD_CPUCOST") == "" {
		t.Skip("set MCPGUARD_CPUCOST=1 to measure")
	}
	if _, ok := processCPU(); !ok {
		t.Skip("this OS has no getrusage: CPU time cannot be measured")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	cpu := func() time.Duration { d, _ := processCPU(); return d }
	ctx := context.Background()
	const rounds, n = 10, 5000
	for _, tl := range declaredBenchTools() {
		vs := declaredBenchVariants()
		servers := make([]*server.MCPServer, len(vs))
		for i, v := range vs {
			servers[i] = v.server(tl.tool)
			_ = servers[i].HandleMessage(ctx, tl.msg)
		}
		per := make([][]float64, len(vs))
		for range rounds {
			for i, s := range servers {
				runtime.GC()
				start := cpu()
				for range n {
					_ = s.HandleMessage(ctx, tl.msg)
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
		for i, v := range vs {
			m := median(per[i])
			t.Logf("%-16s %-26s %7.2f µs CPU/call  %5.3f× bare  %+6.2f µs", tl.name, v.name, m/1000, m/bare, (m-bare)/1000)
		}
	}
}

type declaredBenchTool struct {
	name string
	tool mcp.Tool
	msg  []byte
}

func declaredBenchTools() []declaredBenchTool {
	return []declaredBenchTool{
		{"four-properties", mcp.NewTool("fs_read_file",
			mcp.WithString("path", mcp.Required(), mcp.MaxLength(4096)),
			mcp.WithString("encoding", mcp.Enum("utf-8", "base64", "hex")),
			mcp.WithNumber("max_bytes", mcp.Min(1), mcp.Max(1<<20)),
			mcp.WithBoolean("follow_links")),
			[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fs_read_file","arguments":{"path":"docs/README.md","encoding":"utf-8","max_bytes":65536,"follow_links":false}}}`)},
		{"no-properties", mcp.NewTool("fs_ping"),
			[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fs_ping","arguments":{}}}`)},
	}
}

type declaredBenchVariant struct {
	name string
	opts []server.ServerOption
	mws  []server.ToolHandlerMiddleware
}

func (v declaredBenchVariant) server(tool mcp.Tool) *server.MCPServer {
	s := server.NewMCPServer("bench", "1.0.0", append([]server.ServerOption{server.WithToolCapabilities(false)}, v.opts...)...)
	if len(v.mws) > 0 {
		s.Use(v.mws...)
	}
	s.AddTool(tool, func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("path", "")), nil
	})
	return s
}

func declaredBenchVariants() []declaredBenchVariant {
	return []declaredBenchVariant{
		{"bare", nil, nil},
		{"mcpgo-schema-validation", []server.ServerOption{server.WithInputSchemaValidation()}, nil},
		{"declared-alone", nil, []server.ToolHandlerMiddleware{validate.DeclaredSchemas()}},
		{"default-without-declared", nil, middleware.Default(middleware.WithoutDeclaredSchemas())},
		{"default", nil, middleware.Default()},
	}
}
