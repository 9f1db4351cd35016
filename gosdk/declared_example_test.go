package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// A low-level tool, which go-sdk does not validate, gets its declared
// schema enforced by the Middleware; gosdk.WithoutDeclaredSchemas("git_log")
// would leave it alone.
func ExampleWithoutDeclaredSchemas() {
	server := mcp.NewServer(&mcp.Implementation{Name: "git", Version: "1.0.0"}, nil)
	server.AddTool(&mcp.Tool{Name: "git_log", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"repo_path":{"type":"string"}},"required":["repo_path"]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "log"}}}, nil
		})
	server.AddReceivingMiddleware(gosdk.Middleware())

	t := &testing.T{} // in a real test, your test's *testing.T
	s := gosdktest.Connect(t, server)
	r := s.Call("git_log", map[string]any{"repo_path": 7}).ExpectError(gosdk.ValidationError)
	f := r.Field("repo_path")
	fmt.Println(f.Rule, f.Message)
	fmt.Println("failed:", t.Failed())
	// Output:
	// type repo_path must be a string, not a number
	// failed: false
}
