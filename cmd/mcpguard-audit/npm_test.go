package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/audit"
	"github.com/mcpguard/mcpguard/internal/nodetest"
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
// included, and produces a full report. Their scores are the README's
// worked example; the assertions pin what is stable about them.
func TestNPMServers(t *testing.T) {
	allowed := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(allowed, "keep.txt"), []byte("unchanged"), 0o600))
	memory := filepath.Join(t.TempDir(), "memory.jsonl")
	for _, tc := range []struct {
		bin      string
		args     []string
		env      []string
		tool     string // a tool with required arguments
		minTools int
	}{
		{bin: "mcp-server-everything", args: []string{"stdio"}, tool: "echo", minTools: 5},
		{bin: "mcp-server-filesystem", args: []string{allowed}, tool: "write_file", minTools: 5},
		{bin: "mcp-server-memory", env: []string{"MEMORY_FILE_PATH=" + memory}, tool: "delete_entities", minTools: 5},
	} {
		t.Run(tc.bin, func(t *testing.T) {
			before := tree(t, allowed)
			args := append([]string{"--probe", "--json", "--", npmBin(t, tc.bin)}, tc.args...)
			res := runBin(t, tc.env, args...)
			require.Equal(t, 1, res.code, "the public servers have errors; stdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
			r := decode(t, res.stdout)
			assert.GreaterOrEqual(t, len(r.Tools), tc.minTools)
			assert.Contains(t, r.Tools, tc.tool)
			assert.True(t, r.Probed)
			for _, rule := range audit.Rules() {
				require.NotNil(t, r.Scores.Rule(rule), "rule %s scored", rule)
			}
			// No namespace prefix anywhere: rule A fails on every tool.
			assert.Equal(t, 0.0, r.Scores.A.Percent)
			// The TypeScript SDK answers invalid arguments with isError and
			// plain text: rule D flags it.
			assert.Equal(t, audit.Error, checksOf(r, tc.tool)[audit.CheckEnvelope], res.stdout)
			t.Logf("%s: %s", r.Server, r.Summary())

			text := runBin(t, tc.env, append([]string{"--probe", "--"}, args[3:]...)...)
			assert.Equal(t, 1, text.code)
			assert.Contains(t, text.stdout, "score: A 0%")
			assert.Contains(t, text.stdout, "\n"+tc.tool+":\n")

			assert.Equal(t, before, tree(t, allowed), "the probe changed the filesystem server's directory")
			_, err := os.Stat(memory)
			assert.True(t, os.IsNotExist(err), "the probe made the memory server write its graph")
		})
	}
}
