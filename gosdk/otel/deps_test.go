package otel_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The module boundaries are the guarantee: a consumer module of each
// front, built outside the workspace against this repository's
// directories, has in its module graph only what it asked for.
func TestModuleGraphs(t *testing.T) {
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
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	const (
		mcpGo   = "github.com/mark3labs/mcp-go"
		goSDK   = "github.com/modelcontextprotocol/go-sdk"
		otelAPI = "go.opentelemetry.io/otel"
		otelSDK = "go.opentelemetry.io/otel/sdk"
	)
	for _, tc := range []struct {
		name, front, main string
		have, not         []string
	}{
		{"go-sdk server with OpenTelemetry", "github.com/mcpguard/mcpguard/gosdk/otel", `package main

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/otel"
)

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "consumer"}, nil)
	s.AddReceivingMiddleware(otel.Middleware(), gosdk.Middleware())
}
`, []string{goSDK, otelAPI}, []string{mcpGo}},
		{"go-sdk server without it", "github.com/mcpguard/mcpguard/gosdk", `package main

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/limit"
)

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "consumer"}, nil)
	s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithLimits(limit.Concurrency(4))))
}
`, []string{goSDK}, []string{mcpGo, otelSDK}},
		{"mcp-go server with OpenTelemetry", "github.com/mcpguard/mcpguard/otel", `package main

import (
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/otel"
)

func main() {
	s := server.NewMCPServer("consumer", "0.0.0")
	s.Use(otel.Middleware())
	s.Use(middleware.Default()...)
}
`, []string{mcpGo, otelAPI}, []string{goSDK}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			graph := consumerGraph(t, goBin, repo, tc.front, tc.main)
			for _, m := range tc.have {
				if !inGraph(graph, m) {
					t.Errorf("%s is not in the module graph; the consumer does not test what it should:\n%s", m, graph)
				}
			}
			for _, m := range tc.not {
				if inGraph(graph, m) {
					t.Errorf("%s is in the module graph:\n%s", m, graph)
				}
			}
		})
	}
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
		{"github.com/mcpguard/mcpguard/core/otel", "core/otel"},
		{"github.com/mcpguard/mcpguard/internal", "internal"},
		{"github.com/mcpguard/mcpguard/gosdk", "gosdk"},
		{"github.com/mcpguard/mcpguard/gosdk/otel", "gosdk/otel"},
		{"github.com/mcpguard/mcpguard/otel", "otel"},
	} {
		mod += "\t" + m.path + " => " + filepath.Join(repo, m.dir) + "\n"
	}
	mod += ")\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
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

func inGraph(graph, module string) bool {
	for _, line := range strings.Split(graph, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == module {
			return true
		}
	}
	return false
}
