package nodetest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/e2e/nodetest"
)

// The pinned packages are installed and their binaries found; a name that
// is not installed fails rather than passing quietly.
func TestBinAndNode(t *testing.T) {
	if os.Getenv("CI") == "" {
		if _, err := exec.LookPath("npm"); err != nil {
			t.Skip("npm is not installed and CI is unset")
		}
	}
	bin := nodetest.Bin(t, "mcp-server-memory")
	if _, err := os.Stat(bin); err != nil {
		t.Fatal(err)
	}
	sdk := filepath.Join(nodetest.Dir(t), "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(sdk); err != nil {
		t.Fatalf("the TypeScript SDK is not installed: %v", err)
	}
	if nodetest.Node(t) == "" {
		t.Fatal("no node")
	}
}

// childCase names the case a re-executed test binary runs.
const childCase = "MCPGUARD_NODETEST_CHILD"

// A missing npm, node or installed binary fails the test that needs it,
// with a message saying what is missing; nothing passes quietly. Each case
// runs in a re-executed test binary with PATH cut down, because the
// install runs once per process and looks tools up in PATH.
func TestMissingToolsFailLoudly(t *testing.T) {
	if c := os.Getenv(childCase); c != "" {
		switch c {
		case "npm":
			nodetest.Dir(t)
		case "bin":
			nodetest.Bin(t, "no-such-mcp-server")
		case "node":
			nodetest.Node(t)
		}
		t.Log("not failed: the call above should have failed the test")
		return
	}
	cases := []struct {
		name, path, want string
	}{
		{"npm", t.TempDir(), "npm is not installed"},
	}
	if _, err := exec.LookPath("npm"); err == nil || os.Getenv("CI") != "" {
		nodetest.Dir(t) // installed now, so the children need no npm run
		onlyNPM := t.TempDir()
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(npm, filepath.Join(onlyNPM, "npm")); err != nil {
			t.Fatal(err)
		}
		cases = append(cases,
			struct{ name, path, want string }{"bin", os.Getenv("PATH"), "no-such-mcp-server is not installed"},
			struct{ name, path, want string }{"node", onlyNPM, "node not found"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestMissingToolsFailLoudly$", "-test.count=1", "-test.v")
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "PATH=") {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			cmd.Env = append(cmd.Env, "PATH="+c.path, childCase+"="+c.name)
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), "--- FAIL: TestMissingToolsFailLoudly") {
				t.Fatalf("with PATH=%s the %s case did not fail: %v\n%s", c.path, c.name, err, out)
			}
			if !strings.Contains(string(out), c.want) {
				t.Fatalf("the failure does not say %q:\n%s", c.want, out)
			}
		})
	}
}
