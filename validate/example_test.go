package validate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/validate"
)

type ShopSearchArgs struct {
	Query    string `json:"query" jsonschema:"What to search for" validate:"required,min=3,max=300"`
	Category string `json:"category,omitempty" validate:"omitempty,oneof=AI/ML Data Security"`
	Limit    int    `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
}

// exampleCall sends one tools/call and returns the result's text.
func exampleCall(s *server.MCPServer, args string) string {
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_search","arguments":` + args + `}}`
	out := s.HandleMessage(context.Background(), json.RawMessage(msg))
	res := out.(mcp.JSONRPCResponse).Result.(*mcp.CallToolResult)
	return res.Content[0].(mcp.TextContent).Text
}

// Args validates before the handler runs; ArgsFrom hands it the typed value.
func ExampleArgs() {
	s := server.NewMCPServer("shop", "1.0.0")
	h := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, _ := validate.ArgsFrom[ShopSearchArgs](ctx)
		return mcp.NewToolResultText(fmt.Sprintf("searching %q, limit %d", args.Query, args.Limit)), nil
	}
	s.AddTool(mcp.NewTool("shop_search", validate.InputSchema[ShopSearchArgs]()),
		middleware.Wrap(h, validate.Args[ShopSearchArgs]()))

	fmt.Println(exampleCall(s, `{"query":"agents","limit":10}`))

	env, _ := envelope.Parse(exampleCall(s, `{"query":"agents","category":"ai/ml","limit":9999}`))
	fmt.Println(env.ErrorType)
	for _, f := range env.Fields {
		fmt.Printf("%s %s %s %q: %s\n", f.Field, f.Rule, f.Param, f.Suggestion, f.Message)
	}
	// Output:
	// searching "agents", limit 10
	// validation_error
	// category oneof  "AI/ML": category must be one of: AI/ML, Data, Security (got "ai/ml"); did you mean "AI/ML"?
	// limit max 50 "": limit must be at most 50 (got 9999)
}

// Handler is the typed adapter; its errors stay Go errors for the envelope
// layer to classify.
func ExampleHandler() {
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(envelope.Middleware())
	s.AddTool(mcp.NewTool("shop_search", validate.InputSchema[ShopSearchArgs]()),
		validate.Handler(func(ctx context.Context, req mcp.CallToolRequest, args ShopSearchArgs) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("no results for %q: %w", args.Query, envelope.ErrNotFound)
		}))
	env, _ := envelope.Parse(exampleCall(s, `{"query":"agents"}`))
	fmt.Println(env.ErrorType, env.Message)
	// Output:
	// not_found no results for "agents": not found
}

// InputSchema advertises what the validate tags say.
func ExampleSchema() {
	fmt.Println(string(validate.Schema[ShopSearchArgs]()))
	// Output:
	// {"type":"object","properties":{"query":{"description":"What to search for","type":"string","minLength":3,"maxLength":300},"category":{"type":"string","enum":["AI/ML","Data","Security"]},"limit":{"type":"integer","minimum":1,"maximum":50}},"required":["query"],"additionalProperties":false}
}

// A named pattern is one regular expression for both the schema and the
// runtime check.
func ExampleValidator_RegisterPattern() {
	v := validate.New(nil)
	v.RegisterPattern("sku", `SKU-[0-9]{6}`)

	type args struct {
		SKU string `json:"sku" validate:"required,sku"`
	}
	fmt.Println(string(validate.Schema[args](validate.WithValidator(v))))

	s := server.NewMCPServer("shop", "1.0.0")
	s.AddTool(mcp.NewTool("shop_search", validate.InputSchema[args](validate.WithValidator(v))),
		validate.Handler(func(ctx context.Context, req mcp.CallToolRequest, a args) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("found " + a.SKU), nil
		}, validate.WithValidator(v)))
	fmt.Println(exampleCall(s, `{"sku":"SKU-000042"}`))
	env, _ := envelope.Parse(exampleCall(s, `{"sku":"../../etc/passwd"}`))
	fmt.Println(env.Fields[0].Rule, env.Fields[0].Param)
	// Output:
	// {"type":"object","properties":{"sku":{"type":"string","pattern":"^(?:SKU-[0-9]{6})$","minLength":1}},"required":["sku"],"additionalProperties":false}
	// found SKU-000042
	// pattern ^(?:SKU-[0-9]{6})$
}

// Constraints JSON Schema cannot state are still checked, and said so.
func ExampleRuntimeOnly() {
	type args struct {
		Code string `json:"code" validate:"required,startswith=SKU-"`
	}
	fmt.Println(validate.RuntimeOnly[args]())
	// Output:
	// [code: startswith=SKU-]
}

type PriceArgs struct {
	SKU string `json:"sku" jsonschema:"The product's SKU" validate:"required,alphanum,max=12"`
}

type Price struct {
	SKU   string `json:"sku"`
	Cents int    `json:"cents" validate:"min=0"`
}

// StructuredHandler returns a typed result as structuredContent, with its
// JSON as the text; OutputSchema advertises its schema.
func ExampleStructuredHandler() {
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(envelope.Middleware())
	s.AddTool(mcp.NewTool("shop_price", validate.InputSchema[PriceArgs](), validate.OutputSchema[Price]()),
		validate.StructuredHandler(func(ctx context.Context, req mcp.CallToolRequest, a PriceArgs) (Price, error) {
			if a.SKU != "SKU42" {
				return Price{}, fmt.Errorf("no SKU %s: %w", a.SKU, envelope.ErrNotFound)
			}
			return Price{SKU: a.SKU, Cents: 999}, nil
		}))
	call := func(args string) *mcp.CallToolResult {
		msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_price","arguments":` + args + `}}`
		return s.HandleMessage(context.Background(), json.RawMessage(msg)).(mcp.JSONRPCResponse).Result.(*mcp.CallToolResult)
	}
	res := call(`{"sku":"SKU42"}`)
	fmt.Printf("%+v %s\n", res.StructuredContent, res.Content[0].(mcp.TextContent).Text)
	env, _ := envelope.FromResult(call(`{"sku":"SKU7"}`))
	fmt.Println(env.ErrorType, env.Message)
	fmt.Println(string(validate.OutputSchemaOf[Price]()))
	// Output:
	// {SKU:SKU42 Cents:999} {"sku":"SKU42","cents":999}
	// not_found no SKU SKU7: not found
	// {"type":"object","properties":{"sku":{"type":"string"},"cents":{"type":"integer","minimum":0}},"required":["sku","cents"],"additionalProperties":false}
}

// WithCoercion takes numbers sent as strings, as some models send them.
func ExampleWithCoercion() {
	s := server.NewMCPServer("shop", "1.0.0")
	s.AddTool(mcp.NewTool("shop_search", validate.InputSchema[ShopSearchArgs]()),
		validate.Handler(func(ctx context.Context, req mcp.CallToolRequest, a ShopSearchArgs) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(fmt.Sprintf("limit %d", a.Limit)), nil
		}, validate.WithCoercion(), validate.WithLogger(slog.New(slog.DiscardHandler))))
	fmt.Println(exampleCall(s, `{"query":"agents","limit":"10"}`))
	// Output:
	// limit 10
}
