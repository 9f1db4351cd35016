package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/audit"
	"github.com/mcpguard/mcpguard/e2e/nodetest"
)

// npmBin returns a public MCP server installed from npm by e2e/node. Outside
// CI, a machine without npm skips these tests; in CI (.ci/run installs the
// packages first) a missing install fails them.
func npmBin(t *testing.T, name string) string {
	t.Helper()
	if os.Getenv("CI") == "" {
		if _, err := exec.LookPath("npm"); err != nil {
			t.Skipf("npm is not installed and CI is unset: skipping the audit of %s (install Node.js 20+ to run it)", name)
		}
	}
	return nodetest.Bin(t, name)
}

// tree lists the files under dir, to prove the probe changed nothing.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		out = append(out, p)
		return err
	}))
	return out
}

// The command audits the public servers from npm over stdio, probe
// included, in every format, and the SARIF validates. Their scores are the
// README's worked example; the assertions pin what is stable about them.
// Each starts and lists its tools without network access or credentials.
func TestRealNPMServers(t *testing.T) {
	allowed := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(allowed, "keep.txt"), []byte("unchanged"), 0o600))
	memory := filepath.Join(t.TempDir(), "memory.jsonl")
	noBrowser := filepath.Join(t.TempDir(), "no-browser") // the probe must never start a real browser
	for _, tc := range []struct {
		bin      string
		args     []string
		env      []string
		tool     string // a tool with required arguments
		minTools int
		prefixed bool // the server's tool names share a namespace prefix
	}{
		{bin: "mcp-server-everything", args: []string{"stdio"}, tool: "echo", minTools: 5},
		{bin: "mcp-server-filesystem", args: []string{allowed}, tool: "write_file", minTools: 5},
		{bin: "mcp-server-memory", env: []string{"MEMORY_FILE_PATH=" + memory}, tool: "delete_entities", minTools: 5},
		{bin: "mcp-server-sequential-thinking", tool: "sequentialthinking", minTools: 1},
		{bin: "playwright-mcp", args: []string{"--headless", "--isolated", "--executable-path", noBrowser}, tool: "browser_click", minTools: 10, prefixed: true},
		{bin: "context7-mcp", tool: "resolve-library-id", minTools: 2},
	} {
		t.Run(tc.bin, func(t *testing.T) {
			t.Parallel() // each server is a process of its own; the filesystem server alone reads allowed
			before := tree(t, allowed)
			server := append([]string{"--", npmBin(t, tc.bin)}, tc.args...)
			res := runBin(t, tc.env, append([]string{"--probe", "--json"}, server...)...)
			require.Equal(t, 1, res.code, "the public servers have errors; stdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
			r := decode(t, res.stdout)
			assert.GreaterOrEqual(t, len(r.Tools), tc.minTools)
			assert.Contains(t, r.Tools, tc.tool)
			assert.True(t, r.Probed)
			assert.Empty(t, r.Incomplete)
			for _, rule := range audit.Rules() {
				require.NotNil(t, r.Scores.Rule(rule), "rule %s scored", rule)
			}
			if !tc.prefixed {
				// No namespace prefix: rule A fails on every tool.
				assert.Equal(t, 0.0, r.Scores.A.Percent)
			}
			// The TypeScript SDK answers invalid arguments with isError and
			// plain text: rule D flags it.
			assert.Equal(t, audit.Error, checksOf(r, tc.tool)[audit.CheckEnvelope], res.stdout)
			assert.Empty(t, r.WithCheck(audit.CheckListChanged), "definitions are stable between two calls")
			t.Logf("%s: %s; about %d tokens", r.Server, r.Summary(), r.EstimatedTokens)

			text := runBin(t, tc.env, append([]string{"--probe"}, server...)...)
			assert.Equal(t, 1, text.code)
			assert.Contains(t, text.stdout, "score: A ")
			assert.Contains(t, text.stdout, "\n"+tc.tool+":\n")

			sarif := runBin(t, tc.env, append([]string{"--format=sarif"}, server...)...)
			assert.Equal(t, 1, sarif.code, sarif.stderr)
			validSARIF(t, sarif.stdout)

			md := runBin(t, tc.env, append([]string{"--format=markdown"}, server...)...)
			assert.Equal(t, 1, md.code, md.stderr)
			assert.Contains(t, md.stdout, "| **overall** |")

			assert.Equal(t, before, tree(t, allowed), "the probe changed the filesystem server's directory")
			_, err := os.Stat(memory)
			assert.True(t, os.IsNotExist(err), "the probe made the memory server write its graph")
		})
	}
}
