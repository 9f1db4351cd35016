package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/audit"
)

func TestCommandLanguage(t *testing.T) {
	for cmd, want := range map[string]string{
		"node dist/index.js":                  "node",
		"npx -y @modelcontextprotocol/server": "node",
		"/usr/local/bin/bun run server.ts":    "node",
		"python -m my_server":                 "python",
		"/usr/bin/python3.12 server.py":       "python",
		"uvx mcp-server-git":                  "python",
		`C:\tools\node.exe server.js`:         "node",
		"go run ./cmd/server":                 "go",
		"go build":                            "",
		"./my-server":                         "",
		"":                                    "",
	} {
		assert.Equal(t, want, commandLanguage(strings.Fields(strings.ReplaceAll(cmd, `\`, "/"))), cmd)
	}
}

// A server started with a runtime that is not Go gets rule D fixes that
// name mcpguard-proxy, never Go middleware.
func TestProbeFixesForANodeServer(t *testing.T) {
	// This test binary, serving the bad shop, under the name "node".
	exe, err := os.Executable()
	require.NoError(t, err)
	node := filepath.Join(t.TempDir(), "node")
	if err := os.Symlink(exe, node); err != nil {
		t.Skipf("no symlink: %v", err)
	}
	t.Setenv(testServerEnv, "bad")
	var out, errOut strings.Builder
	code := run(context.Background(), []string{"--probe", "--json", "--", node, "-test.run=^$"}, &out, &errOut)
	require.Equal(t, 1, code, errOut.String())
	r := decode(t, out.String())
	n := 0
	for _, f := range r.Findings {
		if f.Rule == audit.RuleErrors && f.Severity >= audit.Warning && f.Check != audit.CheckLeak && f.Check != audit.CheckNextSteps && f.Check != audit.CheckJSONRPCCode {
			n++
			assert.Contains(t, f.Fix, "mcpguard-proxy")
			assert.NotContains(t, f.Fix, "s.Use(")
		}
	}
	assert.NotZero(t, n)
}
