package e2e_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTypeScriptSDKClient runs e2e/node/sdk/shop.mjs, the official
// TypeScript SDK client (pinned in e2e/node/package-lock.json) talking to
// the shop server over stdio. It needs `npm ci` in e2e/node; without it the
// test skips, except in CI, where it fails.
func TestTypeScriptSDKClient(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	sdk := filepath.Join("node", "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	_, statErr := os.Stat(sdk)
	if err != nil || statErr != nil {
		msg := "node or e2e/node/node_modules missing: run `npm ci` in e2e/node"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	bin, err := filepath.Abs(shopServer(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("sdk", "shop.mjs"), bin)
	cmd.Dir = "node"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the TypeScript SDK client failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `{"passed":11}`) {
		t.Fatalf("not every check ran:\n%s", out)
	}
	t.Logf("%s", out)
}
