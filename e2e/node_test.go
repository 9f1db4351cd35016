package e2e_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/e2e/nodetest"
)

// TestTypeScriptSDKClient runs e2e/node/sdk/shop.mjs, the official
// TypeScript SDK client (pinned in e2e/node/package-lock.json) talking to
// the shop server over stdio. The pinned packages are installed on first
// use; only a machine without npm, outside CI, skips it.
func TestTypeScriptSDKClient(t *testing.T) {
	t.Parallel()
	forEachFront(t, testTypeScriptSDKClient)
}

func testTypeScriptSDKClient(t *testing.T, f front) {
	if os.Getenv("CI") == "" {
		if _, err := exec.LookPath("npm"); err != nil {
			t.Skip("npm is not installed and CI is unset: install Node.js 20+ to run the TypeScript SDK client test")
		}
	}
	dir := nodetest.Dir(t)
	node := nodetest.Node(t)
	bin, err := filepath.Abs(shopServer(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join("sdk", "shop.mjs"), bin}, f.args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the TypeScript SDK client failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `{"passed":13}`) {
		t.Fatalf("not every check ran:\n%s", out)
	}
	t.Logf("%s", out)
}
