package limit_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

var tool = mcp.NewTool("shop_search", mcp.WithString("key"))

// counting returns a handler that succeeds and counts its calls.
func counting(n *atomic.Int64) server.ToolHandlerFunc {
	return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		n.Add(1)
		return mcp.NewToolResultText("ok"), nil
	}
}

// byArgument keys buckets by the "key" argument, so one server can play
// many callers.
func byArgument(_ context.Context, req mcp.CallToolRequest) string {
	return req.GetString("key", "")
}

// send calls shop_search through HandleMessage with ctx and returns the
// response as a transport would write it.
func send(t *testing.T, s *server.MCPServer, ctx context.Context) string {
	t.Helper()
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_search","arguments":{}}}`
	raw, err := json.Marshal(s.HandleMessage(ctx, json.RawMessage(msg)))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
