package gosdk_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Each SDK's users get only that SDK: a consumer module of each front,
// built outside the workspace against this repository's directories, must
// not have the other SDK anywhere in its module graph.
func TestEachFrontPullsInOnlyItsOwnSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("resolves module graphs")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	if out, _ := exec.Command(goBin, "env", "GOPROXY").Output(); strings.TrimSpace(string(out)) == "off" {
		t.Skip("GOPROXY=off: the consumer modules' dependencies cannot be resolved")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("go-sdk server", func(t *testing.T) {
		t.Parallel()
		graph := consumerGraph(t, goBin, repo, "github.com/mcpguard/mcpguard/gosdk", `package main

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
)

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "consumer"}, nil)
	s.AddReceivingMiddleware(gosdk.Middleware())
}
`)
		mustHave(t, graph, "github.com/modelcontextprotocol/go-sdk")
		mustNotHave(t, graph, "github.com/mark3labs/mcp-go")
	})
	t.Run("mcp-go server", func(t *testing.T) {
		t.Parallel()
		graph := consumerGraph(t, goBin, repo, "github.com/mcpguard/mcpguard", `package main

import (
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/middleware"
)

func main() {
	s := server.NewMCPServer("consumer", "0.0.0")
	s.Use(middleware.Default()...)
}
`)
		mustHave(t, graph, "github.com/mark3labs/mcp-go")
		mustNotHave(t, graph, "github.com/modelcontextprotocol/go-sdk")
		// OpenTelemetry and Redis only when asked (otel, redisstore).
		mustNotHave(t, graph, "go.opentelemetry.io/otel")
		mustNotHave(t, graph, "github.com/redis/rueidis")
	})
}

// consumerGraph writes a module requiring front, with main.go as its only
// file, and returns its `go list -m all`.
func consumerGraph(t *testing.T, goBin, repo, front, main string) string {
	t.Helper()
	dir := t.TempDir()
	mod := "module example.com/consumer\n\ngo 1.25.5\n\nrequire " + front + " v0.0.0\n\nreplace (\n"
	for _, m := range []struct{ path, dir string }{
		{"github.com/mcpguard/mcpguard", "."},
		{"github.com/mcpguard/mcpguard/core", "core"},
		{"github.com/mcpguard/mcpguard/internal", "internal"},
		{"github.com/mcpguard/mcpguard/gosdk", "gosdk"},
	} {
		mod += "\t" + m.path + " => " + filepath.Join(repo, m.dir) + "\n"
	}
	mod += ")\n"
	write(t, filepath.Join(dir, "go.mod"), mod)
	write(t, filepath.Join(dir, "main.go"), main)
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	for _, args := range [][]string{{"mod", "tidy"}, {"build", "./..."}} {
		cmd := exec.Command(goBin, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	cmd := exec.Command(goBin, "list", "-m", "all")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m all: %v", err)
	}
	return string(out)
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustHave(t *testing.T, graph, module string) {
	t.Helper()
	if !inGraph(graph, module) {
		t.Errorf("%s is not in the module graph; the consumer does not test what it should:\n%s", module, graph)
	}
}

func mustNotHave(t *testing.T, graph, module string) {
	t.Helper()
	if inGraph(graph, module) {
		t.Errorf("%s is in the module graph:\n%s", module, graph)
	}
}

func inGraph(graph, module string) bool {
	for _, line := range strings.Split(graph, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == module {
			return true
		}
	}
	return false
}
