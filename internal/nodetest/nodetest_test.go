package nodetest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpguard/mcpguard/internal/nodetest"
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
