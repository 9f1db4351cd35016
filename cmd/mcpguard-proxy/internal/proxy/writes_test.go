package proxy_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// TestStdioWritesEachMessageInOneWrite: a message and its end of line
// reach the client in one write, as a relay's io.Copy passes them. Sent
// apart, a client's line reader wakes up twice for each message and waits
// on the second write for the end of line (this test failed with the
// proxy that wrote the end of line apart).
func TestStdioWritesEachMessageInOneWrite(t *testing.T) {
	p := proxy.NewStdio([]string{os.Args[0], "proxy-child"}, io.Discard)
	cin, pin := io.Pipe()
	pout, cout := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, cin, cout); cout.Close() }()
	t.Cleanup(func() { cancel(); pin.Close(); pout.Close(); <-done })

	requests := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"fail_text","arguments":{}}}`,
	}
	go func() {
		for _, r := range requests {
			if _, err := io.WriteString(pin, r+"\n"); err != nil {
				return
			}
		}
	}()
	// An io.Pipe hands each Write to Read as it was written (up to the
	// read buffer's size), so each read is one write of the proxy.
	buf := make([]byte, 1<<20)
	answered := 0
	for answered < 4 {
		n, err := pout.Read(buf)
		if err != nil {
			t.Fatalf("read after %d answers: %v", answered, err)
		}
		chunk := buf[:n]
		if !bytes.HasSuffix(chunk, []byte("\n")) || bytes.Count(chunk, []byte("\n")) != 1 {
			t.Fatalf("a write that is not one message and its end of line: %q", chunk)
		}
		if strings.Contains(string(chunk), `"id":`) {
			answered++
		}
	}
}
