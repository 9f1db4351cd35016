package audit_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/audit"
)

var update = flag.Bool("update", false, "rewrite testdata/findings from the audit as it is")

// digest renders what a report found: its summary, the SHA-256 of its
// whole JSON (every finding, message and fix, in order), the findings per
// check, and, for a small report, each finding.
func digest(t testing.TB, r *audit.Report) string {
	b, err := json.Marshal(r)
	require.NoError(t, err)
	sum := sha256.Sum256(b)
	var out strings.Builder
	fmt.Fprintf(&out, "summary: %s\nreport sha256: %s\n", r.Summary(), hex.EncodeToString(sum[:]))
	counts := map[string]int{}
	for _, f := range r.Findings {
		counts[f.Check+" "+f.Severity.String()]++
	}
	var keys []string
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&out, "%s: %d\n", k, counts[k])
	}
	for _, rule := range audit.AllRules() {
		if n := r.Omitted[rule]; n > 0 {
			fmt.Fprintf(&out, "omitted %s: %d\n", rule, n)
		}
	}
	if len(r.Findings) <= 200 {
		for _, f := range r.Findings {
			fmt.Fprintf(&out, "%s\n\tfix: %s\n", f, f.Fix)
		}
	}
	return out.String()
}

// The audit finds the same on generated listings and the real servers'
// listings as it did before it was made fast: testdata/findings holds
// what it found then. The 10,000-tool listings run with
// MCPGUARD_LOAD=full.
func TestFindingsUnchanged(t *testing.T) {
	cases := []struct {
		name  string
		tools func() []mcp.Tool
		full  bool
	}{
		{"v1.7.0", func() []mcp.Tool { return loadTools(t, "testdata/v1.7.0.json") }, false},
		{"v1.9.0", func() []mcp.Tool { return loadTools(t, "testdata/v1.9.0.json") }, false},
		{"generated-100", func() []mcp.Tool { return generated(100) }, false},
		{"generated-1000", func() []mcp.Tool { return generated(1_000) }, false},
		{"gateway-100", func() []mcp.Tool { return gateway(100) }, false},
		{"gateway-1000", func() []mcp.Tool { return gateway(1_000) }, false},
		{"generated-10000", func() []mcp.Tool { return generated(10_000) }, true},
		{"gateway-10000", func() []mcp.Tool { return gateway(10_000) }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.full && os.Getenv("MCPGUARD_LOAD") != "full" && !*update {
				t.Skip("MCPGUARD_LOAD=full runs the 10,000-tool listings")
			}
			got := digest(t, audit.Tools(tc.tools()))
			file := filepath.Join("testdata", "findings", tc.name+".txt")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
				require.NoError(t, os.WriteFile(file, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(file)
			require.NoError(t, err)
			assert.Equal(t, string(want), got)
		})
	}
}
