// Package wiretest drives a real *server.MCPServer through HandleMessage and
// decodes what a client would receive.
//
// Deprecated: mcpguard's tests use the public middleware/middlewaretest
// harness, what users get. This package is kept only for the one test of
// redact/redact_test.go that still calls it, and goes away with it.
package wiretest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// Response is one JSON-RPC response as bytes and decoded.
type Response struct {
	Raw    []byte
	Result *Result
	Error  *RPCError
}

// Result is the wire shape of a CallToolResult.
type Result struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	Meta              map[string]any  `json:"_meta"`
}

// Content is one content item.
type Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// RPCError is a JSON-RPC error member.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// NewServer returns a server with tool capabilities and the given
// middlewares installed with Use.
func NewServer(mws ...server.ToolHandlerMiddleware) *server.MCPServer {
	s := server.NewMCPServer("wiretest", "1.0.0", server.WithToolCapabilities(false))
	if len(mws) > 0 {
		s.Use(mws...)
	}
	return s
}

// Message builds the raw tools/call request for name with args, which may
// be any JSON-encodable value or a json.RawMessage.
func Message(name string, args any) []byte {
	a, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	n, _ := json.Marshal(name)
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%s,"arguments":%s}}`, n, a))
}

// Call sends a tools/call request through HandleMessage.
func Call(t testing.TB, s *server.MCPServer, name string, args any) Response {
	t.Helper()
	return Send(t, s, Message(name, args))
}

// Send sends a raw JSON-RPC message and decodes the answer strictly.
func Send(t testing.TB, s *server.MCPServer, msg []byte) Response {
	t.Helper()
	out := s.HandleMessage(context.Background(), msg)
	raw, err := json.Marshal(out)
	if err != nil {
		t.Fatalf("encode response: %v", err)
	}
	var wire struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		Error   *RPCError       `json:"error"`
	}
	if err := json.Unmarshal(raw, &wire); err != nil {
		t.Fatalf("decode response %s: %v", raw, err)
	}
	r := Response{Raw: raw, Error: wire.Error}
	if len(wire.Result) > 0 && string(wire.Result) != "null" {
		r.Result = new(Result)
		if err := json.Unmarshal(wire.Result, r.Result); err != nil {
			t.Fatalf("decode result %s: %v", wire.Result, err)
		}
	}
	return r
}

// Envelope requires the response to be a tool error result whose first
// content item is a valid envelope, decoded strictly (no unknown members),
// and whose structured content, when present, is the same envelope.
func (r Response) Envelope(t testing.TB) envelope.Envelope {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("want a tool error result, got JSON-RPC error %d %q", r.Error.Code, r.Error.Message)
	}
	if r.Result == nil || !r.Result.IsError {
		t.Fatalf("want isError result, got %s", r.Raw)
	}
	if len(r.Result.Content) == 0 || r.Result.Content[0].Type != "text" {
		t.Fatalf("want a text content item first, got %s", r.Raw)
	}
	env := decodeStrict(t, []byte(r.Result.Content[0].Text))
	if len(r.Result.StructuredContent) > 0 {
		sc := decodeStrict(t, r.Result.StructuredContent)
		a, _ := json.Marshal(env)
		b, _ := json.Marshal(sc)
		if !bytes.Equal(a, b) {
			t.Fatalf("structuredContent %s differs from text envelope %s", b, a)
		}
	}
	return env
}

func decodeStrict(t testing.TB, b []byte) envelope.Envelope {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var e envelope.Envelope
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("envelope %s does not decode strictly: %v", b, err)
	}
	if e.Success {
		t.Fatalf("envelope %s has success true", b)
	}
	if !e.ErrorType.Valid() {
		t.Fatalf("envelope %s has invalid error_type", b)
	}
	if e.NextSteps == nil {
		t.Fatalf("envelope %s has no next_steps array", b)
	}
	return e
}

// Leaks returns the forbidden fragments found in raw wire bytes: what the
// public harness, middlewaretest.Leaks, looks for (stack traces, source
// positions, absolute paths, the given secrets, raw or JSON-escaped), plus
// a few fixed fragments of Go's runtime output.
func Leaks(raw []byte, secrets ...string) []string {
	found := middlewaretest.Leaks(raw, secrets...)
	s := string(raw)
	for _, f := range []string{"goroutine ", ".go:", "runtime/debug", "/usr/local/go", "panic(", "[running]"} {
		if strings.Contains(s, f) {
			found = append(found, f)
		}
	}
	return found
}
