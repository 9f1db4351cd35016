package gosdktest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// recorder is a testing.TB that keeps the failures a Session reports.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errors...)
}

// auth refuses calls without a token, with an error that carries it, as
// the auth middleware did.
func auth(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if c, ok := req.(*mcp.CallToolRequest); ok && strings.Contains(string(c.Params.Arguments), "expired") {
			return nil, errors.New("unauthorized: token sk-live-4f9a8b7c6d5e4f3a2b1c0d9e expired")
		}
		return next(ctx, method, req)
	}
}

func memory(layers ...mcp.Middleware) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "memory", Version: "v0.0.0"}, nil)
	for _, l := range layers {
		s.AddReceivingMiddleware(l)
	}
	s.AddTool(&mcp.Tool{Name: "read_graph", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
		})
	return s
}

// The harness fails a test whose tool calls pass through a middleware
// added after gosdk.Middleware (outside it, unguarded), and only then.
func TestConnectFailsACallThroughAMiddlewareOutsideTheChain(t *testing.T) {
	t.Parallel()
	rules := []gosdk.Rule{gosdk.For("read_graph", gosdk.OnSuccess(gosdk.Text("Read it.")))}
	for _, tc := range []struct {
		name   string
		server *mcp.Server
		opts   []gosdktest.ConnectOption
		want   string // "" for no failure
	}{
		{"auth after Middleware", memory(gosdk.Middleware(), auth), nil, "read_graph passed through a middleware added after gosdk.Middleware"},
		{"auth after Install", func() *mcp.Server { s := memory(auth); gosdk.Install(s, gosdk.WithHints(rules...)); return s }(), nil, ""},
		{"auth before Middleware", memory(auth, gosdk.Middleware()), nil, ""},
		{"hints after Middleware", memory(gosdk.Middleware(), gosdk.Hints(rules...)), nil, ""},
		{"no gosdk.Middleware", memory(auth), nil, ""},
		{"allowed outside", memory(gosdk.Middleware(), auth), []gosdktest.ConnectOption{gosdktest.AllowMiddlewareOutside()}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{TB: t}
			gosdktest.Connect(rec, tc.server, tc.opts...).Call("read_graph", nil)
			got := rec.failures()
			switch {
			case tc.want == "" && len(got) > 0:
				t.Fatalf("failures %q, want none", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Fatalf("failures %q, want one containing %q", got, tc.want)
			}
		})
	}
}

// A middleware outside that answers a call itself, with the token in a
// JSON-RPC error, is caught once an earlier call showed the chain.
func TestConnectFailsACallAnsweredOutsideTheChain(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	s := gosdktest.Connect(rec, memory(gosdk.Middleware(), auth))
	s.Call("read_graph", nil)
	rec.errors = nil
	r := s.Call("read_graph", map[string]any{"token": "expired"})
	if r.ProtocolError == nil {
		t.Fatalf("want the JSON-RPC error bare go-sdk sends, got %s", r.Raw)
	}
	got := rec.failures()
	if len(got) != 1 || !strings.Contains(got[0], "was answered by a middleware added after gosdk.Middleware") {
		t.Fatalf("failures %q", got)
	}
}
