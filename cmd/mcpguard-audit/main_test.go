package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/audit"
)

// bin is the mcpguard-audit binary, built once by TestMain.
var bin string

func TestMain(m *testing.M) {
	if serveTestServer() || serveHostile() {
		os.Exit(0)
	}
	// The children this test starts (the test binary run again as a
	// server, binaries built with -race) exit without the race runtime's
	// one-second sleep at exit, which each start and stop of a child
	// otherwise pays (it made most of this package's time under -race).
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	dir, err := os.MkdirTemp("", "mcpguard-audit-test")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "mcpguard-audit")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		panic("go build: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

// runBin runs the built command with args and extra environment.
func runBin(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// self runs this test binary as the named stdio test server.
func self(t *testing.T, name string) ([]string, []string) {
	exe, err := os.Executable()
	require.NoError(t, err)
	return []string{testServerEnv + "=" + name}, []string{"--", exe, "-test.run=^$"}
}

func decode(t *testing.T, s string) *audit.Report {
	t.Helper()
	var r audit.Report
	require.NoError(t, json.Unmarshal([]byte(s), &r), s)
	return &r
}

func checksOf(r *audit.Report, tool string) map[string]audit.Severity {
	out := map[string]audit.Severity{}
	for _, f := range r.Findings {
		if f.Tool == tool {
			out[f.Check] = f.Severity
		}
	}
	return out
}

func TestStdioGoodServerGetsFullMarks(t *testing.T) {
	env, args := self(t, "good")
	res := runBin(t, env, append([]string{"--probe", "--fail-on=warning"}, args...)...)
	require.Equal(t, 0, res.code, "stdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
	assert.Contains(t, res.stdout, "good-shop 1.0.0, 3 tool(s), namespace prefix \"shop_\" (detected)")
	assert.Contains(t, res.stdout, "score: A 100%, B 100%, C 100%, D 100%, E 100%, F 100%, overall 100%")
	assert.Contains(t, res.stdout, "shop_get_product: ok")
	assert.Contains(t, res.stdout, "shop_list_categories:\n  info    D.not_probeable", "a tool without arguments is never called")
	assert.Contains(t, res.stdout, "PASS (fail-on warning)")

	res = runBin(t, env, append([]string{"--probe", "--json"}, args...)...)
	require.Equal(t, 0, res.code, res.stderr)
	r := decode(t, res.stdout)
	assert.True(t, r.Probed)
	assert.True(t, r.Perfect(), res.stdout)
	require.NotNil(t, r.Scores.D)
	assert.Equal(t, 2, r.Scores.D.Checked, "shop_list_categories takes no arguments and is not probed")
}

func TestStdioBadServerIsFlagged(t *testing.T) {
	env, args := self(t, "bad")
	res := runBin(t, env, append([]string{"--probe", "--json"}, args...)...)
	require.Equal(t, 1, res.code, "stdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
	r := decode(t, res.stdout)
	assert.Equal(t, "bad-shop 1.0.0", r.Server)
	assert.Equal(t, audit.Error, checksOf(r, "search")[audit.CheckJSONRPC])
	assert.Equal(t, audit.Error, checksOf(r, "getProduct")[audit.CheckJSONRPC])
	assert.Equal(t, audit.Error, checksOf(r, "add-to-cart")[audit.CheckEnvelope])
	assert.Equal(t, audit.Warning, checksOf(r, "getProduct")[audit.CheckSnakeCase])
	assert.Equal(t, audit.Error, checksOf(r, "search")[audit.CheckNamespace])
	require.NotNil(t, r.Scores.D)
	assert.Equal(t, 0.0, r.Scores.D.Percent)
	assert.NotContains(t, res.stdout, "/home/dev", "the report never repeats a leak")

	// Thresholds.
	res = runBin(t, env, append([]string{"--fail-on=none"}, args...)...)
	assert.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "rule D not probed")
	res = runBin(t, env, append([]string{"--fail-on=error", "--prefix=bad_"}, args...)...)
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.stdout, `namespace prefix "bad_"`)

	// --skip keeps the probe off a tool.
	res = runBin(t, env, append([]string{"--probe", "--json", "--skip=search, getProduct"}, args...)...)
	r = decode(t, res.stdout)
	assert.NotContains(t, checksOf(r, "search"), audit.CheckJSONRPC)
	assert.NotContains(t, checksOf(r, "getProduct"), audit.CheckJSONRPC)
	assert.Contains(t, checksOf(r, "add-to-cart"), audit.CheckEnvelope)
}

func TestServerThatCannotStart(t *testing.T) {
	env, args := self(t, "crash")
	res := runBin(t, env, args...)
	assert.Equal(t, 2, res.code)
	assert.Contains(t, res.stderr, "cannot open database shop.db", "the server's stderr explains the failure")

	res = runBin(t, nil, "--", filepath.Join(t.TempDir(), "no-such-server"))
	assert.Equal(t, 2, res.code)
	assert.Contains(t, res.stderr, "mcpguard-audit:")
}

func TestStreamableHTTPOnLoopback(t *testing.T) {
	ts := httptest.NewServer(server.NewStreamableHTTPServer(goodServer()))
	defer ts.Close()
	res := runBin(t, nil, "--probe", "--fail-on=warning", "--url", ts.URL+"/mcp")
	require.Equal(t, 0, res.code, "stdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
	assert.Contains(t, res.stdout, "D 100%")

	// The JSON-RPC codes of tool failures reach the probe over HTTP too.
	bad := httptest.NewServer(server.NewStreamableHTTPServer(badServer()))
	defer bad.Close()
	res = runBin(t, nil, "--probe", "--json", "--url", bad.URL+"/mcp")
	require.Equal(t, 1, res.code, res.stderr)
	assert.Equal(t, audit.Error, checksOf(decode(t, res.stdout), "search")[audit.CheckJSONRPCCode], res.stdout)
}

func TestUsageErrors(t *testing.T) {
	for name, args := range map[string][]string{
		"no server":       {},
		"both":            {"--url", "http://127.0.0.1:1/mcp", "--", "x"},
		"remote url":      {"--url", "http://example.com/mcp"},
		"remote ip":       {"--url", "http://10.0.0.1:8080/mcp"},
		"bad scheme":      {"--url", "file:///etc/passwd"},
		"bad severity":    {"--fail-on=fatal", "--", "x"},
		"bad prefix":      {"--prefix=no spaces", "--", "x"},
		"bad timeout":     {"--timeout=0s", "--", "x"},
		"unknown flag":    {"--nope", "--", "x"},
		"unreachable url": {"--connect-timeout=2s", "--url", "http://127.0.0.1:1/mcp"},
	} {
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), args, &out, &errOut)
			assert.Equal(t, 2, code, errOut.String())
			assert.NotEmpty(t, errOut.String())
			assert.NotContains(t, errOut.String(), "mcpguard-audit: audit:")
			assert.Empty(t, out.String())
		})
	}
	var out, errOut bytes.Buffer
	assert.Equal(t, 0, run(context.Background(), []string{"--help"}, &out, &errOut))
	assert.Contains(t, errOut.String(), "--url")
	assert.Contains(t, errOut.String(), "-probe")
}

func TestLoopback(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:8080/mcp", "http://localhost/mcp", "https://[::1]:9/mcp", "http://127.8.9.10/mcp", "http://LOCALHOST:1/"} {
		assert.NoError(t, loopback(ok), ok)
	}
	for _, bad := range []string{"http://0.0.0.0/mcp", "http://192.168.1.2/", "http://localhost.evil.com/", "http://127.0.0.1.nip.io/", "ftp://127.0.0.1/", "http://[::ffff:8.8.8.8]/"} {
		assert.Error(t, loopback(bad), bad)
	}
}

func TestTailKeepsTheEnd(t *testing.T) {
	tl := &tail{max: 8}
	_, _ = tl.Write([]byte("0123456789"))
	_, _ = tl.Write([]byte("ab"))
	assert.Equal(t, "456789ab", tl.String())
	assert.True(t, strings.HasSuffix(withStderr(assert.AnError, io.NopCloser(nil), tl).Error(), "456789ab"))
}

// The command links package audit, not its test helpers: no "testing" in
// the binary (audit/audittest holds Require and RequireServer).
func TestBinaryDoesNotLinkTesting(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, dep := range strings.Fields(string(out)) {
		assert.NotEqual(t, "testing", dep, "mcpguard-audit links package testing")
	}
}

// --version prints the module version the binary was built at; a build
// from a checkout has none and says so. (The release test installs a
// tagged version with go install and checks it prints that version.)
func TestVersionFlag(t *testing.T) {
	res := runBin(t, nil, "--version")
	assert.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, "mcpguard-audit (devel)\n", res.stdout)
	assert.Empty(t, res.stderr)
}
