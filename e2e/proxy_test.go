package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/mcpguard/mcpguard/e2e/nodetest"
)

var proxyBuild struct {
	once sync.Once
	path string
	err  error
}

// proxyBin builds cmd/mcpguard-proxy once per test binary, in the folder
// of the binaries the tests build, which TestMain removes.
func proxyBin(t testing.TB) string {
	t.Helper()
	proxyBuild.once.Do(func() {
		dirOnce.Do(func() { binDir, proxyBuild.err = os.MkdirTemp("", "mcpguard-e2e-") })
		if binDir == "" {
			proxyBuild.err = errors.Join(errors.New("no folder for the binaries"), proxyBuild.err)
			return
		}
		proxyBuild.path = filepath.Join(binDir, "mcpguard-proxy")
		out, err := exec.Command("go", "build", "-o", proxyBuild.path, "../cmd/mcpguard-proxy").CombinedOutput()
		if err != nil {
			proxyBuild.err = err
			t.Logf("%s", out)
		}
	})
	if proxyBuild.err != nil {
		t.Fatalf("building mcpguard-proxy: %v", proxyBuild.err)
	}
	return proxyBuild.path
}

func needNode(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the launch line is a POSIX shell script here")
	}
	if os.Getenv("CI") == "" {
		if _, err := exec.LookPath("npm"); err != nil {
			t.Skip("npm is not installed and CI is unset: install Node.js 20+ to run the proxy's real-client tests")
		}
	}
}

// TestProxyTypeScriptSDKClient: the official TypeScript SDK client starts
// mcpguard-proxy as its stdio server, the proxy starts the shop, and every
// check e2e/node/sdk/shop.mjs makes of the shop passes through the proxy.
// shop.mjs passes the shop's own flags first, so the launch line is a
// two-line script: exec mcpguard-proxy -- shop-server "$@".
func TestProxyTypeScriptSDKClient(t *testing.T) {
	t.Parallel()
	needNode(t)
	proxy := proxyBin(t)
	shop, err := filepath.Abs(shopServer(t))
	if err != nil {
		t.Fatal(err)
	}
	forEachFront(t, func(t *testing.T, f front) {
		launch := filepath.Join(t.TempDir(), "server")
		script := "#!/bin/sh\nexec " + proxy + " --exit-with-child -- " + shop + ` "$@"` + "\n"
		if err := os.WriteFile(launch, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, nodetest.Node(t), append([]string{filepath.Join("sdk", "shop.mjs"), launch}, f.args...)...)
		cmd.Dir = nodetest.Dir(t)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), `{"passed":13}`) {
			t.Fatalf("the TypeScript SDK client through the proxy: %v\n%s", err, out)
		}
	})
}

// TestProxyNPMServers audits the six public npm servers of the audit's
// worked example with --probe, directly and through the proxy: rule D
// (structured error envelopes) rises to 100% through the proxy, and no
// other rule's score changes, since everything but tools/call passes
// through untouched.
func TestProxyNPMServers(t *testing.T) {
	t.Parallel()
	needNode(t)
	proxy := proxyBin(t)
	audit := filepath.Join(t.TempDir(), "mcpguard-audit")
	if out, err := exec.Command("go", "build", "-o", audit, "../cmd/mcpguard-audit").CombinedOutput(); err != nil {
		t.Fatalf("building mcpguard-audit: %v\n%s", err, out)
	}
	allowed := t.TempDir()
	noBrowser := filepath.Join(t.TempDir(), "no-browser")
	for _, tc := range []struct {
		bin  string
		args []string
		env  []string
	}{
		{bin: "mcp-server-everything", args: []string{"stdio"}},
		{bin: "mcp-server-filesystem", args: []string{allowed}},
		{bin: "mcp-server-memory", env: []string{"MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "memory.jsonl")}},
		{bin: "mcp-server-sequential-thinking"},
		// playwright-mcp leaves a profile and an artifacts folder in
		// TMPDIR for each browser it fails to start: in the test's own.
		{bin: "playwright-mcp", args: []string{"--headless", "--isolated", "--executable-path", noBrowser}, env: []string{"TMPDIR=" + t.TempDir()}},
		{bin: "context7-mcp"},
	} {
		t.Run(tc.bin, func(t *testing.T) {
			server := append([]string{nodetest.Bin(t, tc.bin)}, tc.args...)
			direct := auditScores(t, audit, tc.env, server)
			proxied := auditScores(t, audit, tc.env, append([]string{proxy, "--"}, server...))
			t.Logf("%s: direct %v, through the proxy %v", tc.bin, direct, proxied)
			if proxied["D"] != 100 {
				t.Errorf("rule D through the proxy: %v%%, want 100%%", proxied["D"])
			}
			for _, rule := range []string{"A", "B", "C", "E", "F"} {
				if direct[rule] != proxied[rule] {
					t.Errorf("rule %s changed through the proxy: %v%% -> %v%%", rule, direct[rule], proxied[rule])
				}
			}
		})
	}
}

// auditScores runs mcpguard-audit --probe --json on the server and returns
// each rule's percentage.
func auditScores(t *testing.T, audit string, env, server []string) map[string]float64 {
	t.Helper()
	cmd := exec.Command(audit, append([]string{"--probe", "--json", "--fail-on", "none", "--"}, server...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mcpguard-audit %v: %v\n%s", server, err, out)
	}
	var report struct {
		Scores map[string]json.RawMessage `json:"scores"`
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("the JSON report: %v\n%s", err, out)
	}
	scores := map[string]float64{}
	for rule, raw := range report.Scores {
		var s struct {
			Percent float64 `json:"percent"`
		}
		if json.Unmarshal(raw, &s) == nil {
			scores[rule] = s.Percent
		}
	}
	return scores
}

// TestProxyPassesSuccessesAndListsThrough: for the npm servers that work
// offline, tools/list and a successful tool call give the client the same
// bytes directly and through the proxy.
func TestProxyPassesSuccessesAndListsThrough(t *testing.T) {
	t.Parallel()
	needNode(t)
	proxy := proxyBin(t)
	allowed := t.TempDir()
	for _, tc := range []struct {
		bin        string
		args, env  []string
		tool, call string
	}{
		{bin: "mcp-server-everything", args: []string{"stdio"}, tool: "echo", call: `{"message":"hello through the proxy"}`},
		{bin: "mcp-server-filesystem", args: []string{allowed}, tool: "list_allowed_directories", call: `{}`},
		{bin: "mcp-server-memory", env: []string{"MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "m.jsonl")}, tool: "read_graph", call: `{}`},
		{bin: "mcp-server-sequential-thinking", tool: "sequentialthinking",
			call: `{"thought":"one","nextThoughtNeeded":false,"thoughtNumber":1,"totalThoughts":1}`},
	} {
		t.Run(tc.bin, func(t *testing.T) {
			server := append([]string{nodetest.Bin(t, tc.bin)}, tc.args...)
			direct := rawSession(t, tc.env, server, tc.tool, tc.call)
			proxied := rawSession(t, tc.env, append([]string{proxy, "--"}, server...), tc.tool, tc.call)
			if strings.Contains(direct[1], `"isError":true`) || !strings.Contains(direct[1], `"result"`) {
				t.Fatalf("%s does not succeed directly: %s", tc.tool, direct[1])
			}
			for i, what := range []string{"tools/list", "tools/call " + tc.tool} {
				if direct[i] != proxied[i] {
					t.Errorf("%s: through the proxy\n%s\nwant the same bytes as directly\n%s", what, proxied[i], direct[i])
				}
			}
		})
	}
}

// rawSession initializes the stdio server, lists its tools and calls one,
// and returns the two responses as the lines the client read.
func rawSession(t *testing.T, env, server []string, tool, args string) [2]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, server[0], server[1:]...)
	cmd.Env = append(os.Environ(), env...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); _ = cmd.Wait() }()
	r := bufio.NewReaderSize(out, 1<<20)
	await := func(id string) string {
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("%v: waiting for response %s: %v", server, id, err)
			}
			if strings.Contains(line, `"id":`+id+`,`) || strings.Contains(line, `"id":`+id+`}`) {
				return strings.TrimSpace(line)
			}
		}
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`+"\n")
	await("1")
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	list := await("2")
	io.WriteString(in, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`+"\n")
	return [2]string{list, await("3")}
}

var proxyListening = regexp.MustCompile(`mcpguard-proxy: listening on (http://\S+)`)

// TestProxyHTTPInFrontOfTheShop: the mcp-go client runs every check of
// exerciseShop against the shop's streamable HTTP endpoint through
// mcpguard-proxy --upstream, on both fronts.
func TestProxyHTTPInFrontOfTheShop(t *testing.T) {
	t.Parallel()
	proxy := proxyBin(t)
	forEachFront(t, func(t *testing.T, f front) {
		shop := startHTTP(t, append([]string{"-panic-tool"}, f.args...)...)
		url := startProxy(t, proxy, shop.url)
		c, err := client.NewStreamableHttpClient(url)
		if err != nil {
			t.Fatal(err)
		}
		exerciseShop(t, c, f.protocol)
		if err := c.Close(); err != nil {
			t.Errorf("closing the client: %v", err)
		}
	})
}

// TestProxyStdioInFrontOfTheShop: the mcp-go client runs every check of
// exerciseShop against mcpguard-proxy -- shop-server over stdio, and
// mcpguard-audit --probe still scores the shop 100% on rules A-D through
// the proxy: in front of a server that already complies, the proxy takes
// nothing away.
func TestProxyStdioInFrontOfTheShop(t *testing.T) {
	t.Parallel()
	proxy := proxyBin(t)
	shop, err := filepath.Abs(shopServer(t))
	if err != nil {
		t.Fatal(err)
	}
	audit := filepath.Join(t.TempDir(), "mcpguard-audit")
	if out, err := exec.Command("go", "build", "-o", audit, "../cmd/mcpguard-audit").CombinedOutput(); err != nil {
		t.Fatalf("building mcpguard-audit: %v\n%s", err, out)
	}
	forEachFront(t, func(t *testing.T, f front) {
		c, err := client.NewStdioMCPClientWithOptions(proxy, nil, append([]string{"--", shop, "-panic-tool"}, f.args...))
		if err != nil {
			t.Fatal(err)
		}
		exerciseShop(t, c, f.protocol)
		if err := c.Close(); err != nil {
			t.Errorf("closing the client: %v", err)
		}
		scores := auditScores(t, audit, nil, append([]string{proxy, "--", shop}, f.args...))
		for _, rule := range []string{"A", "B", "C", "D"} {
			if scores[rule] != 100 {
				t.Errorf("rule %s through the proxy: %v%%, want 100%%", rule, scores[rule])
			}
		}
	})
}
