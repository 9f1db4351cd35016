package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpguard/mcpguard/e2e/nodetest"
)

// TestProxyClassifiesNPMServersFailures: through mcpguard-proxy, the free
// text failures of the filesystem, memory and git servers (issue 37's table)
// reach the client with the error type an agent needs, not
// execution_failed for all.
func TestProxyClassifiesNPMServersFailures(t *testing.T) {
	t.Parallel()
	needNode(t)
	proxy := proxyBin(t)
	allowed := t.TempDir()
	if err := os.WriteFile(filepath.Join(allowed, "a.txt"), []byte("a"), 0o600); err != nil {
		t.Fatal(err)
	}
	memory := []string{"MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "m.jsonl")}
	repo := gitRepo(t)
	for _, tc := range []struct {
		name, bin string
		args, env []string
		tool      string
		call      any
		want      string
		retryable bool
	}{
		{name: "missing file", bin: "mcp-server-filesystem", args: []string{allowed}, tool: "read_text_file",
			call: map[string]any{"path": filepath.Join(allowed, "missing.txt")}, want: "not_found"},
		{name: "outside", bin: "mcp-server-filesystem", args: []string{allowed}, tool: "read_text_file",
			call: map[string]any{"path": "/etc/hostname"}, want: "access_denied"},
		{name: "not a directory", bin: "mcp-server-filesystem", args: []string{allowed}, tool: "list_directory",
			call: map[string]any{"path": filepath.Join(allowed, "a.txt")}, want: "validation_error"},
		{name: "exists", bin: "mcp-server-filesystem", args: []string{allowed}, tool: "move_file",
			call: map[string]any{"source": filepath.Join(allowed, "a.txt"), "destination": filepath.Join(allowed, "a.txt")}, want: "execution_failed"},
		{name: "no entity", bin: "mcp-server-memory", env: memory, tool: "add_observations",
			call: map[string]any{"observations": []any{map[string]any{"entityName": "Nobody", "contents": []string{"x"}}}}, want: "not_found"},
		{name: "no object", bin: "git-mcp-server", tool: "git_show",
			call: map[string]any{"path": repo, "object": "nosuchref"}, want: "not_found"},
		{name: "no pathspec", bin: "git-mcp-server", tool: "git_checkout",
			call: map[string]any{"path": repo, "target": "nosuch"}, want: "not_found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args, _ := json.Marshal(tc.call)
			server := append([]string{proxy, "--", nodetest.Bin(t, tc.bin)}, tc.args...)
			line := rawSession(t, tc.env, server, tc.tool, string(args))[1]
			var resp struct {
				Result struct {
					IsError bool `json:"isError"`
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"result"`
			}
			var env struct {
				ErrorType string `json:"error_type"`
				Message   string `json:"message"`
				Retryable bool   `json:"retryable"`
			}
			if err := json.Unmarshal([]byte(line), &resp); err != nil || !resp.Result.IsError || len(resp.Result.Content) == 0 ||
				json.Unmarshal([]byte(resp.Result.Content[0].Text), &env) != nil {
				t.Fatalf("want an envelope: %s", line)
			}
			t.Logf("%s: %s (%q)", tc.tool, env.ErrorType, env.Message)
			if env.ErrorType != tc.want || env.Retryable != tc.retryable {
				t.Errorf("%s: %s, retryable %v; want %s, %v: %s", tc.tool, env.ErrorType, env.Retryable, tc.want, tc.retryable, line)
			}
		})
	}
}

// gitRepo is a git repository with one commit, for the git server.
func gitRepo(t *testing.T) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "."}, {"-c", "user.email=e2e@mcpguard.invalid", "-c", "user.name=e2e", "commit", "-q", "--allow-empty", "-m", "first"}} {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}
