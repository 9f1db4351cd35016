package validate_test

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"slices"
	"testing"

	"github.com/go-playground/validator/v10"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/validate"
)

// benchArgs is the 4-field tool of the benchmark.
type benchArgs struct {
	Query    string  `json:"query" validate:"required,min=3,max=300"`
	Category string  `json:"category,omitempty" validate:"omitempty,oneof=AI/ML Data Security"`
	Limit    int     `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
	MaxPrice float64 `json:"max_price,omitempty" validate:"omitempty,gte=0,lte=1000"`
}

var benchMsg = json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_search","arguments":{"query":"mcp servers","category":"AI/ML","limit":10,"max_price":2.99}}}`)

// The same constraints, written by hand, for WithInputSchemaValidation.
var benchSchema = json.RawMessage(`{"type":"object","properties":{
	"query":{"type":"string","minLength":3,"maxLength":300},
	"category":{"type":"string","enum":["AI/ML","Data","Security"]},
	"limit":{"type":"integer","minimum":1,"maximum":50},
	"max_price":{"type":"number","minimum":0,"maximum":1000}},
	"required":["query"],"additionalProperties":false}`)

var benchValidator = validator.New()

func benchOK(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent{Type: mcp.ContentTypeText, Text: "ok"}}}, nil
}

func runBench(b *testing.B, s *server.MCPServer) {
	b.Helper()
	ctx := context.Background()
	// Sanity: the call succeeds.
	out := s.HandleMessage(ctx, benchMsg)
	if r, ok := out.(mcp.JSONRPCResponse); !ok || r.Result.(*mcp.CallToolResult).IsError {
		b.Fatalf("call failed: %+v", out)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s.HandleMessage(ctx, benchMsg)
	}
}

func BenchmarkValidation(b *testing.B) {
	b.Run("bare", func(b *testing.B) {
		s := server.NewMCPServer("b", "1")
		s.AddTool(mcp.NewTool("shop_search"), benchOK)
		runBench(b, s)
	})
	b.Run("handwritten", func(b *testing.B) {
		s := server.NewMCPServer("b", "1")
		s.AddTool(mcp.NewTool("shop_search"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a benchArgs
			if err := req.BindArguments(&a); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			if err := benchValidator.Struct(&a); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return benchOK(ctx, req)
		})
		runBench(b, s)
	})
	b.Run("WithInputSchemaValidation", func(b *testing.B) {
		s := server.NewMCPServer("b", "1", server.WithInputSchemaValidation())
		s.AddTool(mcp.NewTool("shop_search", mcp.WithRawInputSchema(benchSchema)), benchOK)
		runBench(b, s)
	})
	b.Run("validate.Args", func(b *testing.B) {
		s := server.NewMCPServer("b", "1")
		s.AddTool(mcp.NewTool("shop_search", validate.InputSchema[benchArgs]()), middleware.Wrap(benchOK, validate.Args[benchArgs]()))
		runBench(b, s)
	})
}

// BenchmarkLayer measures binding and validation alone, calling the handler
// directly with the request mcp-go would have parsed, so that the
// comparison is not drowned in JSON-RPC overhead.
func BenchmarkLayer(b *testing.B) {
	req := mcp.CallToolRequest{}
	req.Params.Name = "shop_search"
	req.Params.RawArguments = json.RawMessage(`{"query":"mcp servers","category":"AI/ML","limit":10,"max_price":2.99}`)
	ctx := context.Background()
	run := func(b *testing.B, h server.ToolHandlerFunc) {
		if res, err := h(ctx, req); err != nil || res.IsError {
			b.Fatalf("call failed: %v %v", res, err)
		}
		b.ReportAllocs()
		for b.Loop() {
			_, _ = h(ctx, req)
		}
	}
	b.Run("handwritten", func(b *testing.B) {
		run(b, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a benchArgs
			if err := req.BindArguments(&a); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			if err := benchValidator.Struct(&a); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return benchOK(ctx, req)
		})
	})
	b.Run("validate.Args", func(b *testing.B) {
		mw := validate.Args[benchArgs]()
		// As mcp-go does, apply the middleware on every call.
		run(b, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mw(benchOK)(ctx, req)
		})
	})
}

// TestValidationCPUCost measures what BenchmarkValidation does, in CPU
// time (getrusage) rather than wall time, interleaving the variants round
// by round, so that a machine shared with other work still gives usable
// figures. It reports and asserts nothing about time: run it with
// MCPGUARD_CPUCOST=1 go test -run CPUCost -v ./validate.
func TestValidationCPUCost(t *testing.T) {
	if os.Getenv("MCPGUARD_CPUCOST") == "" {
		t.Skip("set MCPGUARD_CPUCOST=1 to measure")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	variants := []struct {
		name string
		s    *server.MCPServer
	}{
		{"bare", server.NewMCPServer("b", "1")},
		{"handwritten", server.NewMCPServer("b", "1")},
		{"WithInputSchemaValidation", server.NewMCPServer("b", "1", server.WithInputSchemaValidation())},
		{"validate.Args", server.NewMCPServer("b", "1")},
	}
	variants[0].s.AddTool(mcp.NewTool("shop_search"), benchOK)
	variants[1].s.AddTool(mcp.NewTool("shop_search"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a benchArgs
		if err := req.BindArguments(&a); err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		if err := benchValidator.Struct(&a); err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return benchOK(ctx, req)
	})
	variants[2].s.AddTool(mcp.NewTool("shop_search", mcp.WithRawInputSchema(benchSchema)), benchOK)
	variants[3].s.AddTool(mcp.NewTool("shop_search", validate.InputSchema[benchArgs]()), middleware.Wrap(benchOK, validate.Args[benchArgs]()))
	ctx := context.Background()
	cpu := processCPU
	if cpu == nil {
		t.Skip("no process CPU time on this system")
	}
	const rounds, n = 8, 20000
	per := make([][]float64, len(variants))
	for range rounds {
		for i, v := range variants {
			runtime.GC()
			start := cpu()
			for range n {
				v.s.HandleMessage(ctx, benchMsg)
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
	for i, v := range variants {
		m := median(per[i])
		t.Logf("%-26s %8.2f µs CPU/call  +%5.2f µs over bare", v.name, m/1000, (m-bare)/1000)
	}
}
