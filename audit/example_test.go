package audit_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/audit"
	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
)

// The article's v1.7.0 search_skills, audited as a tool list.
func ExampleTools() {
	searchSkills := mcp.NewTool("search_skills",
		mcp.WithDescription("Search the MarketNow marketplace for MCP-compatible skills..."),
		mcp.WithString("query", mcp.Description("Natural language or keyword search...")),
		mcp.WithString("category", mcp.Description("Filter by category (optional). One of: AI/ML, Data, Web/API, Security, DevOps, Communication, etc.")),
		mcp.WithNumber("max_price", mcp.Description("Maximum price in USD (optional, e.g. 2.99)")),
		mcp.WithNumber("limit", mcp.Description("Max results to return (default 10, max 50)")),
	)
	r := audit.Tools([]mcp.Tool{searchSkills}, audit.WithPrefix("marketnow_"))
	for _, f := range r.AtLeast(audit.Warning) {
		fmt.Println(f.Severity, f.Check, f.Path)
	}
	fmt.Println(r.Summary())
	// Output:
	// error A.namespace name
	// warning B.when description
	// warning C.additional inputSchema
	// error C.enum inputSchema.properties.category
	// warning C.max_length inputSchema.properties.category
	// error C.bounds inputSchema.properties.limit
	// warning C.bounds inputSchema.properties.max_price
	// warning C.max_length inputSchema.properties.query
	// warning E.read_only annotations.readOnlyHint
	// A 0%, B 0%, C 0%, E 0%, F 100%, overall 20%
}

// An in-process server built with mcpguard, audited with the probe: the
// way a server's own test asserts full marks.
func ExampleServer() {
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(middleware.Default()...)
	s.AddTool(mcp.NewTool("shop_get_order",
		mcp.WithDescription("Get one order's status. Use this after shop_list_orders has returned an order_id, then tell the user."),
		mcp.WithString("order_id", mcp.Required(), mcp.Pattern(`^ord_[0-9]{6}$`)),
		mcp.WithSchemaAdditionalProperties(false),
		mcp.WithReadOnlyHintAnnotation(true),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, ok := req.GetArguments()["order_id"].(string); !ok {
			return nil, envelope.New(envelope.ValidationError, "order_id must be a string like ord_123456")
		}
		return nil, envelope.Wrap(envelope.NotFound, errors.New("no such order"))
	})
	s.AddTool(mcp.NewTool("shop_list_orders",
		mcp.WithDescription("List the user's recent orders. Use this when the user asks about an order, then call shop_get_order with its order_id."),
		mcp.WithSchemaAdditionalProperties(false),
		mcp.WithReadOnlyHintAnnotation(true),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("[]"), nil
	})

	r, err := audit.Server(context.Background(), s, audit.WithProbe())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Summary())
	fmt.Println(r.Perfect())
	// Output:
	// A 100%, B 100%, C 100%, D 100%, E 100%, F 100%, overall 100%
	// true
}

// A failing report, checked against thresholds as a CI gate would.
func ExampleReport_Failed() {
	r := audit.Tools([]mcp.Tool{mcp.NewTool("x_echo",
		mcp.WithDescription("Echo a message back. Use this when testing the connection, then continue."),
		mcp.WithString("message", mcp.Required()),
		mcp.WithSchemaAdditionalProperties(false),
	)})
	fmt.Println(r.Failed(audit.Error), r.Failed(audit.Warning))
	fmt.Println(r.WithCheck(audit.CheckMaxLength)[0].Fix)
	// Output:
	// false true
	// add "maxLength" (and "minLength" if empty strings are invalid)
}
