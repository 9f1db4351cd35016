package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain runs the test binary as a small stdio MCP server when its first
// argument is "main-child".
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "main-child" {
		mainChild()
		os.Exit(0)
	}
	// The children this test starts (the test binary run again as a
	// server, binaries built with -race) exit without the race runtime's
	// one-second sleep at exit, which each start and stop of a child
	// otherwise pays (it made most of this package's time under -race).
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	os.Exit(m.Run())
}

// mainChild answers initialize, tools/list and a tools/call of echo.
func mainChild() {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || len(m.ID) == 0 {
			continue
		}
		var res string
		switch m.Method {
		case "initialize":
			res = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"child","version":"1"}}`
		case "tools/list":
			res = `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`
		default:
			res = `{"content":[{"type":"text","text":"hi"}]}`
		}
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, res)
	}
}

// session is what a host sends over stdio: initialize, tools/list, a call.
const session = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}
`

// stdioRun runs the proxy in stdio mode with flags in front of the child,
// sends session, and waits for the answers before closing stdin.
func stdioRun(t *testing.T, flags ...string) (stdout, stderr string) {
	t.Helper()
	pin, pout := io.Pipe()
	out, errs := &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	args := append(append(flags, "--"), os.Args[0], "main-child")
	go func() { done <- run(context.Background(), args, pin, out, errs) }()
	if _, err := io.WriteString(pout, session); err != nil {
		t.Fatal(err)
	}
	for range 1000 { // the three answers, then the end of the session
		if strings.Count(out.String(), "\n") >= 3 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	pout.Close()
	if code := <-done; code != exitOK {
		t.Fatalf("exit %d\n%s", code, errs.String())
	}
	return out.String(), errs.String()
}

// In stdio mode stdout is the protocol: --otel-stdout is refused with a
// sentence that says why and what to use.
func TestOtelStdoutRefusedInStdioMode(t *testing.T) {
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"--otel-stdout", "--", "server"}, strings.NewReader(""), &bytes.Buffer{}, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "stdout, which carries the MCP messages in stdio mode") ||
		!strings.Contains(stderr.String(), "--otel-stderr") {
		t.Errorf("exit %d, %q", code, stderr.String())
	}
}

// --otel-stderr in stdio mode: the spans and the metric go to stderr, and
// stdout carries nothing but the JSON-RPC answers.
func TestOtelStderrKeepsStdoutTheProtocol(t *testing.T) {
	stdout, stderr := stdioRun(t, "--otel-stderr")
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil || m["jsonrpc"] != "2.0" {
			t.Errorf("stdout has a line that is not a JSON-RPC message: %.200q", line)
		}
	}
	for _, want := range []string{`"Name": "tools/call echo"`, `"Name": "initialize"`, "mcp.server.operation.duration",
		`"Value": "mcpguard-proxy"`, `"Key": "service.version"`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %s:\n%.3000s", want, stderr)
		}
	}
}

// --otel exports with OTLP over HTTP to the collector the standard
// variables name, and flushes on exit.
func TestOtelExportsOTLPOnExit(t *testing.T) {
	var mu sync.Mutex
	got := map[string][]byte{}
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got[r.URL.Path] = append(got[r.URL.Path], b...)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_SERVICE_NAME", "")
	stdout, _ := stdioRun(t, "--otel")
	if !strings.Contains(stdout, `"id":3`) {
		t.Fatalf("the call was not answered: %s", stdout)
	}
	mu.Lock()
	defer mu.Unlock()
	for path, want := range map[string][]string{"/v1/traces": {"tools/call echo", "mcpguard-proxy"}, "/v1/metrics": {"mcp.server.operation.duration"}} {
		for _, w := range want {
			if !bytes.Contains(got[path], []byte(w)) {
				t.Errorf("the collector's %s has no %q (%d bytes)", path, w, len(got[path]))
			}
		}
	}
}

// --otel-stdout in HTTP mode prints the spans to stdout.
func TestOtelStdoutInHTTPMode(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req struct{ ID json.RawMessage }
		_ = json.Unmarshal(b, &req) // the proxy's minted id, which the answer carries
		w.Header().Set("Content-Type", "application/json")
		if bytes.Contains(b, []byte("tools/list")) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`, req.ID)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"hi"}]}}`, req.ID)
	}))
	defer up.Close()
	ctx, cancel := context.WithCancel(context.Background())
	out, errs := &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--otel-stdout", "--upstream", up.URL, "--listen", "127.0.0.1:0"}, nil, out, errs)
	}()
	addr := regexp.MustCompile(`listening on (http://\S+)`)
	var url string
	for range 1000 {
		if m := addr.FindStringSubmatch(errs.String()); m != nil {
			url = m[1]
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if url == "" {
		cancel()
		t.Fatalf("the proxy did not start: %s", errs.String())
	}
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`} {
		resp, err := http.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	cancel()
	if code := <-done; code != exitOK {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if !strings.Contains(out.String(), `"Name": "tools/call echo"`) || !strings.Contains(out.String(), `"Value": "tcp"`) {
		t.Errorf("stdout lacks the span:\n%.2000s", out.String())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
