package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/audit"
)

// dFixes returns the fixes of rule D's findings.
func dFixes(r *audit.Report) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Rule == audit.RuleErrors && f.Severity >= audit.Warning && f.Check != audit.CheckLeak && f.Check != audit.CheckNextSteps {
			out = append(out, f.Fix)
		}
	}
	return out
}

// probeBad probes the bad shop through a real mcp-go client, as a client
// of a server in another language would.
func probeBad(t *testing.T, opts ...audit.Option) *audit.Report {
	var rec calls
	c, err := client.NewInProcessClient(badServer(&rec))
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, c.Start(ctx))
	t.Cleanup(func() { c.Close() })
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	_, err = c.Initialize(ctx, init)
	require.NoError(t, err)
	r, err := audit.Client(ctx, c, append([]audit.Option{audit.WithProbe()}, opts...)...)
	require.NoError(t, err)
	return r
}

// Rule D's fixes fit the server's language: mcpguard-proxy for a server
// that is not Go, mcpguard's middleware for a Go one, both when the
// language is unknown.
func TestErrorFixesFitTheServersLanguage(t *testing.T) {
	node := dFixes(probeBad(t, audit.WithServerLanguage("node")))
	require.NotEmpty(t, node)
	for _, fix := range node {
		assert.Contains(t, fix, "mcpguard-proxy")
		assert.NotContains(t, fix, "s.Use(")
		assert.NotContains(t, fix, "gosdk")
	}
	for _, fix := range dFixes(probeBad(t, audit.WithServerLanguage("go"))) {
		assert.NotContains(t, fix, "mcpguard-proxy")
	}
	unknown := strings.Join(dFixes(probeBad(t)), "\n")
	assert.Contains(t, unknown, "mcpguard-proxy")
	assert.Contains(t, unknown, "s.Use(middleware.Default()...)")

	// An in-process mcp-go server is Go.
	r, err := audit.Server(context.Background(), badServer(&calls{}), audit.WithProbe())
	require.NoError(t, err)
	for _, fix := range dFixes(r) {
		assert.NotContains(t, fix, "mcpguard-proxy")
	}
}

// Rule A's fix prefixes a name with the server's own name when it is
// known, rather than a placeholder.
func TestNamespaceFixUsesTheServersName(t *testing.T) {
	tl := named("read_file", "write_file")
	for name, want := range map[string]string{
		"secure-filesystem-server 0.2.0":          `"secure_filesystem_read_file"`,
		"@modelcontextprotocol/server-memory 1.0": `"memory_read_file"`,
		"mcp-server-sqlite":                       `"sqlite_read_file"`,
		"":                                        `"myserver_read_file"`,
		"MCP Server":                              `"myserver_read_file"`,
	} {
		var opts []audit.Option
		if name != "" {
			opts = append(opts, audit.WithServerName(name))
		}
		fs := find(audit.Tools(tl, opts...), audit.CheckNamespace, "read_file", "")
		require.Len(t, fs, 1, name)
		assert.Contains(t, fs[0].Fix, want, name)
	}
}

// The SARIF log passes validators' advice: driver.version a plain version
// (SARIF2005), with semanticVersion, and every rule's name a PascalCase
// name distinct from its id (SARIF1001), unique across rules.
func TestSARIFToolVersionAndRuleNames(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, audit.Tools(named("read_file")).WriteSARIF(&b, audit.SARIFOptions{ToolVersion: "v0.1.0"}))
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Version         string `json:"version"`
					SemanticVersion string `json:"semanticVersion"`
					Rules           []struct {
						ID   string `json:"id"`
						Name string `json:"name"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &log))
	d := log.Runs[0].Tool.Driver
	assert.Equal(t, "0.1.0", d.Version)
	assert.Equal(t, "0.1.0", d.SemanticVersion)
	pascal := regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	seen := map[string]string{}
	for _, r := range d.Rules {
		assert.NotEqual(t, r.ID, r.Name)
		assert.Regexp(t, pascal, r.Name, r.ID)
		assert.Empty(t, seen[r.Name], "%s and %s share the name %s", seen[r.Name], r.ID, r.Name)
		seen[r.Name] = r.ID
	}
}
