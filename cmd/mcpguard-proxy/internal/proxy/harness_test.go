package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// session is a client of a Stdio proxy run in this process, in front of
// the test binary as its child server.
type session struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan []byte
	done  chan error
	logs  *syncBuffer
	other [][]byte // messages read while waiting for an answer
	next  int
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

// waitFor returns the log once it holds want, or what it holds after
// ten seconds: the child's stderr is copied by a goroutine of its own,
// so a line the child wrote may arrive after the answer that followed it.
func (s *syncBuffer) waitFor(want string) string { return s.waitForN(want, 1) }

// waitForN is waitFor for a log that holds want n times.
func (s *syncBuffer) waitForN(want string, n int) string {
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if logs := s.String(); strings.Count(logs, want) >= n || time.Now().After(deadline) {
			return logs
		}
	}
}

// start runs a proxy in front of the child server and initializes it.
func start(t *testing.T, opts ...proxy.Option) *session {
	t.Helper()
	return startCmd(t, []string{os.Args[0], "proxy-child"}, opts...)
}

// startCmd runs a proxy in front of the server argv and initializes it.
func startCmd(t *testing.T, argv []string, opts ...proxy.Option) *session {
	t.Helper()
	before := runtime.NumGoroutine()
	s := &session{t: t, lines: make(chan []byte, 64), done: make(chan error, 1), logs: &syncBuffer{}}
	opts = append([]proxy.Option{proxy.WithLogger(slog.New(slog.NewTextHandler(s.logs, nil)))}, opts...)
	p := proxy.NewStdio(argv, s.logs, opts...)
	cin, pin := io.Pipe()
	pout, cout := io.Pipe()
	s.in = pin
	go func() { s.done <- p.Serve(context.Background(), cin, cout); cout.Close() }()
	go func() {
		r := bufio.NewReaderSize(pout, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				s.lines <- bytes.TrimRight(line, "\n")
			}
			if err != nil {
				close(s.lines)
				return
			}
		}
	}()
	t.Cleanup(func() {
		s.close()
		noLeaks(t, before)
		if t.Failed() {
			t.Logf("proxy and child logs:\n%s", s.logs.String())
		}
	})
	s.request("initialize", `{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}`)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *session) close() {
	s.in.Close()
	drained := make(chan struct{})
	go func() { // what the proxy still sends (answers to calls in flight)
		for range s.lines {
		}
		close(drained)
	}()
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		s.t.Errorf("the proxy did not end when its client closed stdin")
	}
	<-drained
}

// send writes one raw line to the proxy.
func (s *session) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("writing to the proxy: %v", err)
	}
}

// read returns the next message from the proxy.
func (s *session) read() []byte {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("the proxy closed its stdout")
		}
		return l
	case <-time.After(30 * time.Second):
		s.t.Fatalf("no message from the proxy in 30 s")
	}
	return nil
}

// request sends a request and returns its response, keeping what came
// before it in s.other.
func (s *session) request(method, params string) map[string]any {
	s.t.Helper()
	s.next++
	id := fmt.Sprint(s.next)
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params))
	return s.await(id)
}

// await reads until the response to id.
func (s *session) await(id string) map[string]any {
	s.t.Helper()
	for {
		line := s.read()
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			s.t.Fatalf("the proxy sent a line that is not JSON: %.200q", line)
		}
		if _, isReq := m["method"]; !isReq && fmt.Sprint(m["id"]) == id {
			return m
		}
		s.other = append(s.other, line)
	}
}

// call calls a tool and returns the response.
func (s *session) call(tool string, args string) map[string]any {
	s.t.Helper()
	return s.request("tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args))
}

// envelope returns the envelope of an error result, failing unless the
// response is one.
func envelopeOf(t *testing.T, resp map[string]any) map[string]any {
	t.Helper()
	res, ok := resp["result"].(map[string]any)
	if !ok || res["isError"] != true {
		t.Fatalf("want an isError result, got %v", resp)
	}
	content := res["content"].([]any)
	text := content[0].(map[string]any)["text"].(string)
	var env map[string]any
	if err := json.Unmarshal([]byte(text), &env); err != nil {
		t.Fatalf("the first content item is not an envelope: %q", text)
	}
	if sc, ok := res["structuredContent"].(map[string]any); ok && sc["error_type"] != env["error_type"] {
		t.Fatalf("structuredContent %v disagrees with the text %v", sc, env)
	}
	return env
}

func textOf(t *testing.T, resp map[string]any) string {
	t.Helper()
	res, ok := resp["result"].(map[string]any)
	if !ok {
		t.Fatalf("want a result, got %v", resp)
	}
	return res["content"].([]any)[0].(map[string]any)["text"].(string)
}

// noLeaks waits for the goroutines to fall back to what ran before.
func noLeaks(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines left running, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}
