package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/e2e/nodetest"
)

// relayChildEnv names the variable that turns the test binary, re-executed,
// into the do-nothing stdio relay: it starts the command the variable holds
// (server-everything) and copies bytes both ways with io.Copy.
const relayChildEnv = "MCPGUARD_LATENCY_RELAY_CHILD"

// latencyTarget is one entry of e2e/node/sdk/latency.mjs's config: a stdio
// command the client starts, or a streamable HTTP endpoint.
type latencyTarget struct {
	Name    string            `json:"name"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
}

// TestProxyLatencyAgainstARelay measures the latency mcpguard-proxy adds to
// a tools/call end to end, next to what a relay that does nothing adds: the
// official TypeScript SDK client calls server-everything's echo directly,
// through io.Copy both ways (stdio) or httputil.ReverseProxy (streamable
// HTTP), and through the proxy, from one client that calls each of the six
// targets once a round, in a fresh random order. It prints p50 and p99 per target and the proxy's added
// latency over the relay's; it asserts only that every call was answered
// with its own echo, never a time. Run it with
//
//	MCPGUARD_PROXY_LATENCY=1 go test -count=1 -run '^TestProxyLatencyAgainstARelay$' -v ./e2e
//
// MCPGUARD_PROXY_LATENCY_CALLS sets the timed calls per target (2000 by
// default); MCPGUARD_PROXY_LATENCY_BEFORE, the path of another
// mcpguard-proxy build (an older commit's), adds it as two more targets,
// "stdio proxy before" and "HTTP proxy before", in the same rounds.
func TestProxyLatencyAgainstARelay(t *testing.T) {
	if os.Getenv("MCPGUARD_PROXY_LATENCY") == "" {
		t.Skip("set MCPGUARD_PROXY_LATENCY=1 to measure the proxy's latency against a do-nothing relay")
	}
	needNode(t)
	calls := 2000
	if s := os.Getenv("MCPGUARD_PROXY_LATENCY_CALLS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("MCPGUARD_PROXY_LATENCY_CALLS=%q: want a positive number", s)
		}
		calls = n
	}
	proxy := proxyBin(t)
	everything := nodetest.Bin(t, "mcp-server-everything")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	upstream := startNPMEverythingHTTP(t, everything)
	relay := httptest.NewServer(reverseProxyTo(t, upstream))
	t.Cleanup(relay.Close)
	targets := []latencyTarget{
		{Name: "stdio direct", Command: everything, Args: []string{"stdio"}},
		{Name: "stdio relay", Command: self, Args: []string{"-test.run=^TestProxyLatencyRelayChild$"},
			Env: map[string]string{relayChildEnv: everything}},
		{Name: "stdio proxy", Command: proxy, Args: []string{"--exit-with-child", "--", everything, "stdio"}},
		{Name: "HTTP direct", URL: upstream},
		{Name: "HTTP relay", URL: relay.URL + "/mcp"},
		{Name: "HTTP proxy", URL: startProxy(t, proxy, upstream)},
	}
	if before := os.Getenv("MCPGUARD_PROXY_LATENCY_BEFORE"); before != "" {
		targets = append(targets,
			latencyTarget{Name: "stdio proxy before", Command: before, Args: []string{"--exit-with-child", "--", everything, "stdio"}},
			latencyTarget{Name: "HTTP proxy before", URL: startProxy(t, before, upstream)})
	}
	micros := runLatencyClient(t, targets, calls)
	t.Logf("%d timed echo calls per target, in random order each round; microseconds per call\n%s", calls, latencyTable(targets, micros))
}

// TestProxyLatencyRelayChild is not a test: re-executed by
// TestProxyLatencyAgainstARelay with relayChildEnv set, the test binary is
// the do-nothing stdio relay, and exits when the client closes its stdin
// and the server its stdout.
func TestProxyLatencyRelayChild(t *testing.T) {
	server := os.Getenv(relayChildEnv)
	if server == "" {
		t.Skip("the stdio relay of TestProxyLatencyAgainstARelay, run only by it")
	}
	cmd := exec.Command(server, "stdio")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = io.Copy(in, os.Stdin)
		in.Close()
	}()
	_, _ = io.Copy(os.Stdout, out)
	_ = cmd.Wait()
	os.Exit(0) // before the testing package writes PASS on the client's stream
}

// startNPMEverythingHTTP runs server-everything's streamable HTTP transport
// on a free loopback port and returns its endpoint once it listens.
func startNPMEverythingHTTP(t *testing.T, everything string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(everything, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+port)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr + "/mcp"
		}
		if time.Now().After(deadline) { // a hang guard, far above the usual second
			t.Fatalf("server-everything did not listen on %s", addr)
		}
	}
}

// reverseProxyTo is the do-nothing HTTP relay: httputil.ReverseProxy with
// its defaults (it flushes text/event-stream answers as they come).
func reverseProxyTo(t *testing.T, endpoint string) http.Handler {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = ""
	return httputil.NewSingleHostReverseProxy(u)
}

// runLatencyClient runs sdk/latency.mjs over targets and returns each
// target's timed calls in microseconds. The script fails, and so the test,
// if any call is not answered with its own echo.
func runLatencyClient(t *testing.T, targets []latencyTarget, calls int) map[string][]float64 {
	t.Helper()
	config, err := json.Marshal(map[string]any{"calls": calls, "warmup": 200, "targets": targets})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "latency.json")
	if err := os.WriteFile(file, config, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nodetest.Node(t), filepath.Join("sdk", "latency.mjs"), file)
	cmd.Dir = nodetest.Dir(t)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("sdk/latency.mjs: %v\n%s%s", err, stdout.Bytes(), stderr.Bytes())
	}
	var micros map[string][]float64
	if err := json.Unmarshal(stdout.Bytes(), &micros); err != nil {
		t.Fatalf("sdk/latency.mjs printed %q: %v\n%s", stdout.Bytes(), err, stderr.Bytes())
	}
	for _, tg := range targets {
		if len(micros[tg.Name]) != calls {
			t.Fatalf("%s: %d timed calls, want %d", tg.Name, len(micros[tg.Name]), calls)
		}
	}
	return micros
}

// latencyTable renders p50 and p99 per target, then what each relayed
// target adds over its transport's direct call, and that as a multiple of
// what the do-nothing relay adds.
func latencyTable(targets []latencyTarget, micros map[string][]float64) string {
	var b strings.Builder
	p := map[string][2]float64{}
	b.WriteString("| target | p50 | p99 |\n|---|---|---|\n")
	for _, tg := range targets {
		ds := make([]time.Duration, len(micros[tg.Name]))
		for i, us := range micros[tg.Name] {
			ds[i] = time.Duration(us * float64(time.Microsecond))
		}
		p[tg.Name] = [2]float64{microseconds(percentile(ds, 0.50)), microseconds(percentile(ds, 0.99))}
		fmt.Fprintf(&b, "| %s | %.0f | %.0f |\n", tg.Name, p[tg.Name][0], p[tg.Name][1])
	}
	b.WriteString("\n| added over direct | p50 | p99 | ÷ the relay's, p50 / p99 | median of the rounds' differences, ÷ the relay's |\n|---|---|---|---|---|\n")
	for _, tg := range targets {
		tr, _, _ := strings.Cut(tg.Name, " ")
		if tg.Name == tr+" direct" {
			continue
		}
		d, r, x := p[tr+" direct"], p[tr+" relay"], p[tg.Name]
		paired := pairedMedian(micros[tg.Name], micros[tr+" direct"])
		fmt.Fprintf(&b, "| %s | %.0f | %.0f | %.2f / %.2f | %.0f, %.2f |\n", tg.Name,
			x[0]-d[0], x[1]-d[1], (x[0]-d[0])/(r[0]-d[0]), (x[1]-d[1])/(r[1]-d[1]),
			paired, paired/pairedMedian(micros[tr+" relay"], micros[tr+" direct"]))
	}
	return b.String()
}

// pairedMedian returns the median over rounds of a[i] - base[i]: each
// round calls every target once, back to back, so a load that slows one
// call of a round tends to slow its neighbours, and the difference within a
// round cancels more of it than the difference of the two medians does.
func pairedMedian(a, base []float64) float64 {
	ds := make([]time.Duration, len(a))
	for i := range a {
		ds[i] = time.Duration((a[i] - base[i]) * float64(time.Microsecond))
	}
	return microseconds(percentile(ds, 0.50))
}

func microseconds(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
