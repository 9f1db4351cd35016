package envelope_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
)

// A call that arrived on the wire is read as the client sent it: member
// order, spacing and number spelling kept, so a digest or a seal over it
// is the client's, not a re-encoding's.
func ExampleArgumentsOf() {
	s := server.NewMCPServer("shop", "1.0.0")
	s.AddTool(mcp.NewTool("shop_search"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Println(string(envelope.ArgumentsOf(req)))
		return mcp.NewToolResultText("ok"), nil
	})
	s.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_search","arguments":{"z": 1.0, "a":"x"}}}`))
	// Output:
	// {"z": 1.0, "a":"x"}
}

// A request built in process has no raw bytes: its Arguments are encoded,
// and arguments that cannot be encoded read as none rather than as a
// partial text.
func TestArgumentsOfARequestBuiltInProcess(t *testing.T) {
	cases := []struct {
		name string
		req  mcp.CallToolRequest
		want string
	}{
		{"none", mcp.CallToolRequest{}, ""},
		{"a map", mcp.CallToolRequest{Params: mcp.CallToolParams{Arguments: map[string]any{"b": 2, "a": 1}}}, `{"a":1,"b":2}`},
		{"unencodable", mcp.CallToolRequest{Params: mcp.CallToolParams{Arguments: map[string]any{"c": make(chan int)}}}, ""},
		{"raw wins over a map", mcp.CallToolRequest{Params: mcp.CallToolParams{Arguments: map[string]any{"a": 1}, RawArguments: []byte(`{"a": 1}`)}}, `{"a": 1}`},
	}
	for _, c := range cases {
		if got := string(envelope.ArgumentsOf(c.req)); got != c.want {
			t.Errorf("%s: ArgumentsOf = %q, want %q", c.name, got, c.want)
		}
	}
}
