package middleware_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
)

// One line makes every tool failure an envelope the agent can act on.
func ExampleDefault() {
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(middleware.Default()...)
	s.AddTool(mcp.NewTool("shop_query"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, envelope.Wrap(envelope.ExecutionFailed,
			errors.New(`query via postgres://app:hunter2@db/shop: relation "users" does not exist`))
	})

	out := s.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_query","arguments":{}}}`))
	res := out.(mcp.JSONRPCResponse).Result.(*mcp.CallToolResult)
	fmt.Println(res.Content[0].(mcp.TextContent).Text)
	// Output:
	// {"success":false,"error_type":"execution_failed","tool":"shop_query","message":"query via postgres://app:[REDACTED]@db/shop: relation \"users\" does not exist","next_steps":["Read the message, adjust the input accordingly, and retry."],"retryable":false}
}

// ForTools applies a layer to some tools only.
func ExampleForTools() {
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(middleware.ForTools(envelope.Middleware(), "shop_new"))
	fail := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, envelope.ErrNotFound
	}
	s.AddTool(mcp.NewTool("shop_new"), fail)
	s.AddTool(mcp.NewTool("shop_legacy"), fail)

	for _, name := range []string{"shop_new", "shop_legacy"} {
		out := s.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`","arguments":{}}}`))
		switch v := out.(type) {
		case mcp.JSONRPCResponse:
			fmt.Println(name, "-> tool result, isError:", v.Result.(*mcp.CallToolResult).IsError)
		case mcp.JSONRPCError:
			fmt.Println(name, "-> JSON-RPC error", v.Error.Code)
		}
	}
	// Output:
	// shop_new -> tool result, isError: true
	// shop_legacy -> JSON-RPC error -32603
}
