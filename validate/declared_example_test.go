package validate_test

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
)

// A server written the usual way, schema from mcp.WithString and friends
// and arguments read by hand: behind middleware.Default the declared
// schema is enforced before the handler runs (validate.DeclaredSchemas).
func ExampleDeclaredSchemas() {
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(middleware.Default()...)
	s.AddTool(mcp.NewTool("shop_search",
		mcp.WithString("query", mcp.Required()),
		mcp.WithString("category", mcp.Enum("AI/ML", "Data", "Security")),
		mcp.WithNumber("limit", mcp.Min(1), mcp.Max(50))),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(fmt.Sprintf("searching %q, limit %d", req.GetString("query", ""), req.GetInt("limit", 10))), nil
		})

	fmt.Println(exampleCall(s, `{"query":"agents","limit":"20"}`)) // a lossless "20" is converted

	env, _ := envelope.Parse(exampleCall(s, `{"query":12345,"category":"ai/ml","limit":9999}`))
	fmt.Println(env.ErrorType)
	for _, f := range env.Fields {
		fmt.Printf("%s %s %s %q: %s\n", f.Field, f.Rule, f.Param, f.Suggestion, f.Message)
	}
	// Output:
	// searching "agents", limit 20
	// validation_error
	// category oneof  "AI/ML": category must be one of: AI/ML, Data, Security (got "ai/ml"); did you mean "AI/ML"?
	// limit max 50 "": limit must be at most 50 (got 9999)
	// query type string "": query must be a string, not a number
}
