package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestInstallFromAClone follows the README's install path of today, before
// any release is published: in a clone of this repository's committed
// HEAD, the README's use-local line makes a scratch module outside the
// repository use the clone's modules, and that module builds a server on
// middleware.Default and one on gosdk.Middleware. Third-party modules come
// from this machine's module cache only (GOPROXY=off), so the test needs
// no network; .ci/run fills the cache first. MCPGUARD_INSTALL=1 runs it
// (.ci/run's install step): it builds mcp-go and go-sdk against the
// versions a scratch module resolves, which the test command's build
// cache does not hold.
func TestInstallFromAClone(t *testing.T) {
	if os.Getenv("MCPGUARD_INSTALL") == "" {
		t.Skip("MCPGUARD_INSTALL=1 runs the install test, which builds a scratch module on a clone (.ci/run's install step)")
	}
	for _, tool := range []string{"git", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the install test needs %s: %v", tool, err)
		}
	}
	top, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	readme := readDoc(t, "README.md")
	line := regexp.MustCompile(`(?m)^cd your-server && (~/src/mcpguard)/scripts/use-local \.$`).FindStringSubmatch(readme)
	if line == nil || !strings.Contains(readme, "git clone https://github.com/mcpguard/mcpguard ~/src/mcpguard\n") {
		t.Fatal("the README's install path is no longer `git clone https://github.com/mcpguard/mcpguard ~/src/mcpguard` " +
			"then `cd your-server && ~/src/mcpguard/scripts/use-local .`: update this test with it")
	}
	tmp := t.TempDir()
	clone := filepath.Join(tmp, "src", "mcpguard")
	run(t, nil, "", "git", "clone", "-q", "--no-local", top, clone)
	env := []string{"GOWORK=off", "GOPROXY=off", "GOSUMDB=off", "GOFLAGS=-modcacherw"}
	for name, main := range map[string]string{"mcpgo": installMCPGo, "gosdk": installGoSDK} {
		dir := filepath.Join(tmp, name)
		writeFile(t, filepath.Join(dir, "main.go"), main)
		run(t, env, dir, "go", "mod", "init", "example.com/"+name)
		cmd := strings.Replace(line[0], "your-server", dir, 1)
		cmd = strings.Replace(cmd, line[1], clone, 1)
		t.Logf("$ %s\n%s", cmd, runCombined(t, env, dir, "bash", "-c", cmd))
		run(t, env, dir, "go", "build", "-o", filepath.Join(dir, name), ".")
		gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(gomod), "=> "+top) {
			t.Errorf("%s's go.mod replaces a module with the repository under test, not the clone:\n%s", name, gomod)
		}
	}
}

const installMCPGo = `package main

import (
	"log"

	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpguard/mcpguard/middleware"
)

func main() {
	s := server.NewMCPServer("scratch", "1.0.0")
	s.Use(middleware.Default()...)
	if err := server.ServeStdio(s); err != nil {
		log.Fatal(err)
	}
}
`

const installGoSDK = `package main

import (
	"context"
	"log"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "scratch", Version: "1.0.0"}, nil)
	s.AddReceivingMiddleware(gosdk.Middleware())
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
`
