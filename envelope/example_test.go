package envelope_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
)

// A handler wraps a sentinel with %w; the agent receives not_found with a
// next step instead of a JSON-RPC error it never sees.
func ExampleMiddleware() {
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(envelope.Middleware())
	s.AddTool(mcp.NewTool("shop_get_product"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("product P-404: %w", envelope.ErrNotFound)
	})

	out := s.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_get_product","arguments":{}}}`))
	res := out.(mcp.JSONRPCResponse).Result.(*mcp.CallToolResult)
	env, _ := envelope.FromResult(res)
	fmt.Println(res.IsError, env.ErrorType, env.Message)
	fmt.Println(env.NextSteps[0])
	// Output:
	// true not_found product P-404: not found
	// Verify the identifier with the tool that lists or searches these resources, then retry with an identifier it returned.
}

// Existing errors get a code without touching the handler.
func ExampleWithMapping() {
	mw := envelope.Middleware(envelope.WithMapping(sql.ErrNoRows, envelope.NotFound))
	h := mw(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("load order: %w", sql.ErrNoRows)
	})
	res, _ := h(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "shop_get_order"}})
	env, _ := envelope.FromResult(res)
	fmt.Println(env.ErrorType, "|", env.Message)
	// Output: not_found | load order: sql: no rows in result set
}

// Next steps that name the tool to call come before the code's defaults.
func ExampleAddNextSteps() {
	err := envelope.AddNextSteps(
		fmt.Errorf("session expired: %w", envelope.ErrAuthenticationFailed),
		"Call shop_authenticate with your API key, then retry this call.")
	res := envelope.ErrorResult(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "shop_orders"}}, err)
	env, _ := envelope.FromResult(res)
	for _, s := range env.NextSteps {
		fmt.Println("-", s)
	}
	// Output:
	// - Call shop_authenticate with your API key, then retry this call.
	// - Re-authenticate to obtain a fresh session or credentials, then retry the call.
}

func ExampleCodeOf() {
	fmt.Println(envelope.CodeOf(fmt.Errorf("card: %w", envelope.ErrNotFound)))
	fmt.Println(envelope.CodeOf(envelope.Wrap(envelope.ExecutionFailed, errors.New("disk full"))))
	fmt.Println(envelope.CodeOf(errors.New("anything else")))
	// Output:
	// not_found
	// execution_failed
	// internal_error
}
