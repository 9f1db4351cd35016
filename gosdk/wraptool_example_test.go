package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
)

// A handler-level test keeps calling the handler directly: WrapTool runs
// it behind the server's own middleware, so the test reads the envelope a
// client would, mappings included.
func ExampleWrapTool() {
	errDenied := errors.New("store: access denied")
	handler := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("read graph: %w", errDenied)
	}
	guard := gosdk.Middleware(gosdk.WithMapping(errDenied, gosdk.AccessDenied))

	res, err := gosdk.WrapTool(handler, guard)(context.Background(), &mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{Name: "read_graph", Arguments: json.RawMessage(`{}`)},
	})
	env, _ := gosdk.Parse(res.Content[0].(*mcp.TextContent).Text)
	fmt.Println(err, res.IsError, env.ErrorType, "|", env.Message)
	// Output:
	// <nil> true access_denied | read graph: store: access denied
}
