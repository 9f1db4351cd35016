// Package nodetest makes the pinned npm packages under e2e/node available to
// Go tests: the official TypeScript SDK client and the public MCP servers the
// audit is run against. The first test that needs them runs `npm ci` once,
// under a file lock, so `go test ./...` works on a fresh clone with nothing
// but Go and Node installed.
package nodetest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	once    sync.Once
	dir     string
	failure string
)

// Dir returns the absolute path of e2e/node with its node_modules
// installed, installing them with `npm ci` if needed. It fails the test when
// node or npm is missing or the install fails: a real-client test that
// cannot run must not pass silently.
func Dir(t testing.TB) string {
	t.Helper()
	once.Do(setup)
	if failure != "" {
		t.Fatalf("nodetest: %s", failure)
	}
	return dir
}

// Bin returns the path of an executable installed by e2e/node's
// package.json, such as "mcp-server-everything".
func Bin(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(Dir(t), "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("nodetest: %s is not installed: %v", name, err)
	}
	return p
}

// Node returns the path of the node executable.
func Node(t testing.TB) string {
	t.Helper()
	Dir(t)
	p, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("nodetest: node not found: %v", err)
	}
	return p
}

func setup() {
	_, file, _, _ := runtime.Caller(0)
	dir = filepath.Join(filepath.Dir(file), "..", "node")
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if _, err := exec.LookPath("npm"); err != nil {
		failure = "npm is not installed; the real-client tests need Node.js 20+ and npm"
		return
	}
	// go test runs packages in parallel processes; serialise installs.
	unlock, err := lockFile(filepath.Join(dir, ".install.lock"))
	if err != nil {
		failure = err.Error()
		return
	}
	defer unlock()

	if installed() {
		return
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		failure = "npm ci in " + dir + " failed: " + err.Error() + "\n" + out.String()
		return
	}
	if !installed() {
		failure = "npm ci did not install the pinned packages"
	}
}

// installed reports whether node_modules holds exactly the versions the
// lock file pins, comparing it with the record npm keeps of each install.
func installed() bool {
	want, err := lockedVersions(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return false
	}
	have, err := lockedVersions(filepath.Join(dir, "node_modules", ".package-lock.json"))
	if err != nil {
		return false
	}
	for path, v := range want {
		if have[path] != v {
			return false
		}
	}
	return true
}

func lockedVersions(file string) (map[string]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
			Dev     bool   `json:"dev"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(lock.Packages))
	for path, p := range lock.Packages {
		if path != "" {
			out[path] = p.Version
		}
	}
	return out, nil
}
