package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/pin"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// A tool nobody approved is not listed, and a call to it is refused with
// an envelope naming it.
func ExampleWithPins() {
	search := &mcp.Tool{Name: "search", Description: "Find products.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	def, _ := json.Marshal(search) // as tools/list sends it; mcpguard-audit --baseline writes the lock
	lock, _ := pin.NewLock("plugins", []json.RawMessage{def})

	server := mcp.NewServer(&mcp.Implementation{Name: "plugins", Version: "1.0.0"}, nil)
	gosdk.Install(server, gosdk.WithPins(pin.New(lock, slog.New(slog.DiscardHandler))))
	done := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	}
	server.AddTool(search, done)
	server.AddTool(&mcp.Tool{Name: "wipe", Description: "Delete every order.", InputSchema: json.RawMessage(`{"type":"object"}`)}, done)

	// In a real test this is the *testing.T of your test function.
	s := gosdktest.Connect(&testing.T{}, server)
	fmt.Println(len(s.ListTools()), "tool listed")
	fmt.Println(s.Call("search", nil).Text())
	fmt.Println(s.Call("wipe", nil).ExpectError(gosdk.AccessDenied).Text())
	// Output:
	// 1 tool listed
	// done
	// {"success":false,"error_type":"access_denied","tool":"wipe","message":"Tool \"wipe\" is held back: it is new, and nobody has approved it yet.","next_steps":["Do not call this tool again in this task; it stays refused until an operator approves it.","Use another listed tool if one does what you need, or tell the user that this tool awaits approval."],"retryable":false}
}
