package e2e_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/e2e/nodetest"
)

// conformanceSDK is the go-sdk whose conformance everything-server the
// suite runs against: the version the gosdk module builds on.
const conformanceSDK = "github.com/modelcontextprotocol/go-sdk@v1.8.0"

// TestConformanceSuite runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in e2e/node, every server
// scenario: --suite all) against go-sdk's own conformance everything-server,
// stateful and stateless, directly and through mcpguard-proxy --upstream.
// Every scenario that passes directly passes through the proxy, and
// tools-call-error passes through the proxy. So that the comparison cannot
// pass vacuously, the stateful server (both versions are pinned) must pass
// every scenario directly.
func TestConformanceSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the conformance suite runs two servers and the suite twice")
	}
	t.Parallel()
	needNode(t)
	suite := nodetest.Bin(t, "conformance")
	server := everythingServer(t)
	proxy := proxyBin(t)
	// Stateful, the scenarios that make the server ask the client (sampling,
	// elicitation) pass directly; stateless, the server's default, they
	// fail directly, and must not change through the proxy either.
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			upstream := startEverythingServer(t, server, stateless)
			direct := conformanceThroughProxy(t, suite, upstream, startProxy(t, proxy, upstream))
			for name, failed := range direct {
				if !stateless && failed != "" {
					t.Errorf("%s fails directly against the stateful server: %s", name, failed)
				}
			}
		})
	}
}

// conformanceThroughProxy runs the suite against upstream and through, and
// checks that the proxy takes no scenario away. It returns the direct
// results.
func conformanceThroughProxy(t *testing.T, suite, upstream, through string) map[string]string {
	t.Helper()
	direct := runConformance(t, suite, upstream)
	proxied := runConformance(t, suite, through)
	if len(direct) == 0 {
		t.Fatal("the suite ran no scenario")
	}
	var names []string
	for name := range direct {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Logf("%-32s direct: %-4s proxy: %s", name, verdict(direct[name]), verdict(proxied[name]))
		got, ran := proxied[name]
		switch {
		case !ran:
			t.Errorf("%s: ran directly, not through the proxy", name)
		case direct[name] == "" && got != "":
			t.Errorf("%s passes directly, fails through the proxy: %s", name, got)
		}
	}
	if got, ran := proxied["tools-call-error"]; !ran || got != "" {
		t.Errorf("tools-call-error through the proxy: ran %v, %s", ran, got)
	}
	return direct
}

func verdict(failure string) string {
	if failure == "" {
		return "pass"
	}
	return "FAIL"
}

// everythingServer builds the conformance everything-server of
// conformanceSDK from its module (downloaded into the module cache if it
// is not there yet), outside the workspace, with the SDK's own go.mod.
func everythingServer(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", conformanceSDK).Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", conformanceSDK, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download %s: no Dir in %s", conformanceSDK, out)
	}
	bin := filepath.Join(t.TempDir(), "everything-server")
	cmd := exec.Command("go", "build", "-o", bin, "./conformance/everything-server")
	cmd.Dir = mod.Dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s/conformance/everything-server: %v\n%s", conformanceSDK, err, b)
	}
	return bin
}

// startEverythingServer runs the server, stateless or not, on a free
// loopback port, and returns its endpoint once it accepts.
func startEverythingServer(t *testing.T, bin string, stateless bool) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "-http", addr, fmt.Sprintf("-stateless=%v", stateless))
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr + "/mcp"
		}
		if time.Now().After(deadline) { // a hang guard, far above the usual milliseconds
			t.Fatalf("the everything-server did not listen on %s", addr)
		}
	}
}

// startProxy runs mcpguard-proxy --upstream upstream on a free loopback
// port and returns the endpoint it serves, once it listens.
func startProxy(t *testing.T, proxy, upstream string, flags ...string) string {
	t.Helper()
	cmd := exec.Command(proxy, append([]string{"--upstream", upstream, "--listen", "127.0.0.1:0"}, flags...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := proxyListening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case u := <-urls:
		return u
	case <-time.After(time.Minute):
		t.Fatal("mcpguard-proxy did not listen in time")
		return ""
	}
}

// resultDir is the directory the suite writes a scenario's checks to:
// server-SCENARIO-TIMESTAMP.
var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)

// runConformance runs every server scenario against url and returns, per
// scenario, "" when it passed or its failed checks.
func runConformance(t *testing.T, suite, url string) map[string]string {
	t.Helper()
	out := t.TempDir()
	ctx := withTimeout(t, 3*time.Minute) // the whole suite takes seconds
	cmd := exec.CommandContext(ctx, suite, "server", "--suite", "all", "--url", url, "-o", out)
	log, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the conformance suite against %s did not finish in time\n%s", url, log)
	}
	_ = err // the suite exits non-zero when a scenario fails; the checks say which
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]string{}
	for _, e := range entries {
		m := resultDir.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		results[m[1]] = failedChecks(t, filepath.Join(out, e.Name(), "checks.json"))
	}
	if len(results) == 0 {
		t.Fatalf("the conformance suite against %s wrote no results\n%s", url, log)
	}
	return results
}

// failedChecks lists the checks of one scenario whose status is FAILURE.
func failedChecks(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		return "no checks: " + err.Error()
	}
	var checks []struct {
		ID, Status, ErrorMessage string
	}
	if err := json.Unmarshal(b, &checks); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var failed []string
	for _, c := range checks {
		if c.Status == "FAILURE" {
			failed = append(failed, fmt.Sprintf("%s (%s)", c.ID, c.ErrorMessage))
		}
	}
	return strings.Join(failed, "; ")
}
