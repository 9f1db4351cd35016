package audit_test

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/audit"
	"github.com/mcpguard/mcpguard/envelope"
)

func BenchmarkTools(b *testing.B) {
	for _, file := range []string{"testdata/v1.7.0.json", "testdata/v1.9.0.json"} {
		tl := loadTools(b, file)
		b.Run(file[len("testdata/"):], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				audit.Tools(tl)
			}
		})
	}
}

func BenchmarkServerProbe(b *testing.B) {
	s := goodServer(&calls{})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := audit.Server(context.Background(), s, audit.WithProbe()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolsScale audits listings of 100, 1,000 and 10,000 tools:
// generated servers whose descriptions name other tools and near-misses,
// and gateway listings (a dozen namespaces, descriptions naming sibling
// tools, some misspelled, three to six properties each). The work grows
// linearly with the tools.
func BenchmarkToolsScale(b *testing.B) {
	for _, listing := range []struct {
		name string
		gen  func(int) []mcp.Tool
	}{{"generated", generated}, {"gateway", gateway}} {
		for _, n := range []int{100, 1_000, 10_000} {
			tl := listing.gen(n)
			b.Run(fmt.Sprintf("%s/tools=%d", listing.name, n), func(b *testing.B) {
				b.ReportAllocs()
				cpu := cpuTime()
				for b.Loop() {
					audit.Tools(tl)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/tool")
				b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N*n), "cpu-ns/tool")
			})
		}
	}
}

// BenchmarkServer100Probed audits a generated 100-tool mcp-go server
// behind mcpguard's Default chain in-process: listing twice, the static
// rules and the probe (up to three invalid calls a tool).
func BenchmarkServer100Probed(b *testing.B) {
	s := server.NewMCPServer("gen", "1.0.0")
	s.Use(goodServerChain()...)
	for _, t := range generated(100) {
		s.AddTool(t, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, envelope.New(envelope.ValidationError, "record_id is required")
		})
	}
	b.ReportAllocs()
	for b.Loop() {
		r, err := audit.Server(context.Background(), s, audit.WithProbe())
		if err != nil || r.Scores.D == nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPinScale sets the cost of pinning beside the audit's own, for
// listings of 10,000 tools (issue 51): the audit alone; the audit and its
// baseline (each definition in canonical form and its SHA-256, written
// out: --baseline); the audit checked against that baseline
// (--check-baseline). ns/tool of the second and third less the first's is
// what pinning costs.
func BenchmarkPinScale(b *testing.B) {
	for _, listing := range []struct {
		name string
		gen  func(int) []mcp.Tool
	}{{"generated", generated}, {"gateway", gateway}} {
		tl := listing.gen(10_000)
		base, err := audit.Tools(tl).Baseline()
		if err != nil {
			b.Fatal(err)
		}
		for _, run := range []struct {
			name string
			f    func() error
		}{
			{"audit", func() error { audit.Tools(tl); return nil }},
			{"audit+baseline", func() error {
				base, err := audit.Tools(tl).Baseline()
				if err == nil {
					err = base.Write(io.Discard)
				}
				return err
			}},
			{"audit+check-baseline", func() error {
				if n := len(audit.Tools(tl, audit.WithBaseline(base)).WithCheck(audit.CheckBaselineChanged)); n != 0 {
					return fmt.Errorf("%d changed", n)
				}
				return nil
			}},
		} {
			b.Run(listing.name+"/tools=10000/"+run.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := run.f(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(tl)), "ns/tool")
			})
		}
	}
}
