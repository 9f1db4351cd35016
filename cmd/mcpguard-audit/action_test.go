package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// actionRun is one offline run of the GitHub Action's audit step.
type actionRun struct {
	code                     int
	stdout, outputs, summary string
	sarif                    string
}

// runAction runs scripts/audit-action as action.yml does, with the local
// build of mcpguard-audit and GitHub's output files in a temporary
// directory.
func runAction(t *testing.T, env ...string) actionRun {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	dir := t.TempDir()
	outputs, summary, sarif := filepath.Join(dir, "output"), filepath.Join(dir, "summary.md"), filepath.Join(dir, "audit.sarif")
	cmd := exec.Command("bash", filepath.Join("..", "..", "scripts", "audit-action"))
	cmd.Env = append(os.Environ(), "MCPGUARD_BIN="+bin, "GITHUB_OUTPUT="+outputs, "GITHUB_STEP_SUMMARY="+summary,
		"INPUT_SARIF_FILE="+sarif, "INPUT_PROBE=true", "INPUT_SARIF_URI=server/tools.go")
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	read := func(f string) string { b, _ := os.ReadFile(f); return string(b) }
	return actionRun{code: code, stdout: out.String(), outputs: read(outputs), summary: read(summary), sarif: read(sarif)}
}

// The action's script, run offline against a local build: it writes the
// SARIF log, the job summary and the outputs, and leaves failing to the
// Gate step so that the upload runs first.
func TestActionScript(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	server := "INPUT_COMMAND='" + exe + "' -test.run=^$"

	good := runAction(t, server, testServerEnv+"=good", "INPUT_FAIL_ON=warning")
	require.Equal(t, 0, good.code, good.stdout)
	assert.Contains(t, good.outputs, "exit-code=0\n")
	assert.Contains(t, good.outputs, "sarif-file=")
	assert.Contains(t, good.stdout, "PASS (fail-on warning)")
	assert.Contains(t, good.summary, "| **overall** | **100%** | |")
	validSARIF(t, good.sarif)
	assert.Contains(t, good.sarif, `"uri": "server/tools.go"`)

	bad := runAction(t, server, testServerEnv+"=bad", "INPUT_ARGS=--skip search")
	require.Equal(t, 0, bad.code, "the script leaves failing to the Gate step")
	assert.Contains(t, bad.outputs, "exit-code=1\n")
	assert.Contains(t, bad.stdout, "::error::mcpguard-audit: findings")
	validSARIF(t, bad.sarif)
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID     string            `json:"ruleId"`
				Properties map[string]string `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal([]byte(bad.sarif), &log))
	probed := map[string]bool{}
	for _, r := range log.Runs[0].Results {
		if strings.HasPrefix(r.RuleID, "D.") {
			probed[r.Properties["tool"]] = true
		}
	}
	assert.False(t, probed["search"], "--skip reached the command: search was not probed")
	assert.True(t, probed["getProduct"])

	none := runAction(t)
	assert.Contains(t, none.outputs, "exit-code=2\n")
	assert.Contains(t, none.stdout, "::error::mcpguard-audit: give the server")
}

// action.yml passes every input the script reads, and each input is
// documented.
func TestActionYAMLMatchesItsScript(t *testing.T) {
	yml, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	require.NoError(t, err)
	script, err := os.ReadFile(filepath.Join("..", "..", "scripts", "audit-action"))
	require.NoError(t, err)
	passed := regexp.MustCompile(`(?m)^\s+(INPUT_[A-Z_]+): \$\{\{ inputs\.([a-z-]+) \}\}$`).FindAllStringSubmatch(string(yml), -1)
	var envs []string
	for _, m := range passed {
		envs = append(envs, m[1])
		assert.Equal(t, "INPUT_"+strings.ToUpper(strings.ReplaceAll(m[2], "-", "_")), m[1])
		assert.Contains(t, string(yml), "\n  "+m[2]+":\n    description: ", m[2])
	}
	read := regexp.MustCompile(`INPUT_[A-Z_]+`).FindAllString(string(script), -1)
	slices.Sort(read)
	read = slices.Compact(read)
	slices.Sort(envs)
	assert.Equal(t, read, envs)
	assert.Contains(t, string(yml), "go install \"github.com/mcpguard/mcpguard/cmd/mcpguard-audit@")
	assert.Contains(t, string(yml), "github/codeql-action/upload-sarif@")
}
