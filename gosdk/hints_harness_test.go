package gosdk_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A small local harness: a real *mcp.Server driven by a real go-sdk client
// over the in-memory transport, answering with the JSON the client
// received. (The public harness, gosdktest, is written on another branch.)

// connect serves s to a go-sdk client and returns the client's session.
func connect(t testing.TB, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0.0.0"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs
}

// newServer returns a server with the layers added in one call (the first
// outermost) and the tools add registers.
func newServer(add func(s *mcp.Server), layers ...mcp.Middleware) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "v0.0.0"}, nil)
	if len(layers) > 0 {
		s.AddReceivingMiddleware(layers...)
	}
	add(s)
	// The tools the hints of these tests name: the hints layer sends no
	// step naming a tool the server does not have.
	for _, name := range []string{"shop_authenticate", "shop_search", "shop_track"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	return s
}

// wire is one tools/call answer as the client received it, re-encoded.
type wire struct {
	Raw  string
	JSON map[string]any
}

// callTool calls tool with args and returns the result's JSON; a protocol
// error fails the test.
func callTool(t testing.TB, cs *mcp.ClientSession, tool string, args any) wire {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: protocol error %v", tool, err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return wire{Raw: string(raw), JSON: m}
}

// envelope returns the envelope the first text item holds; the result must
// be an error.
func (w wire) envelope(t testing.TB) map[string]any {
	t.Helper()
	if w.JSON["isError"] != true {
		t.Fatalf("want isError: true, got %s", w.Raw)
	}
	var env map[string]any
	if err := json.Unmarshal([]byte(w.texts(t)[0]), &env); err != nil {
		t.Fatalf("first text item is no envelope: %s", w.Raw)
	}
	return env
}

// texts returns the text content items.
func (w wire) texts(t testing.TB) []string {
	t.Helper()
	var out []string
	content, _ := w.JSON["content"].([]any)
	for _, c := range content {
		if m, _ := c.(map[string]any); m["type"] == "text" {
			out = append(out, m["text"].(string))
		}
	}
	if len(out) == 0 {
		t.Fatalf("no text content: %s", w.Raw)
	}
	return out
}

// nextSteps returns the envelope's next_steps.
func nextSteps(env map[string]any) []string {
	var out []string
	steps, _ := env["next_steps"].([]any)
	for _, s := range steps {
		out = append(out, s.(string))
	}
	return out
}

// metaSteps returns the steps under NextStepsMetaKey in the result's _meta.
func (w wire) metaSteps() []string {
	meta, _ := w.JSON["_meta"].(map[string]any)
	var out []string
	steps, _ := meta["io.github.mcpguard/next_steps"].([]any)
	for _, s := range steps {
		out = append(out, s.(string))
	}
	return out
}
