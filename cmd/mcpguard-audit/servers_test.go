package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
)

// testServerEnv selects which test server the test binary runs over stdio
// when it is started by mcpguard-audit.
const testServerEnv = "MCPGUARD_AUDIT_TEST_SERVER"

// serveTestServer runs the selected test server on stdio, if any, and
// reports whether it did.
func serveTestServer() bool {
	var s *server.MCPServer
	switch os.Getenv(testServerEnv) {
	case "":
		return false
	case "good":
		s = goodServer()
	case "bad":
		s = badServer()
	case "gen100":
		s = generatedServer(100)
	case "gen10000":
		s = generatedServer(10_000)
	case "crash":
		fmt.Fprintln(os.Stderr, "fatal: cannot open database shop.db")
		os.Exit(3)
	default:
		fmt.Fprintln(os.Stderr, "unknown test server")
		os.Exit(3)
	}
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return true
}

var productID = regexp.MustCompile(`^prd_[0-9]{6}$`)

// goodServer follows all four rules: namespaced snake_case names,
// descriptions with a trigger and a successor, strict schemas, and
// mcpguard's Default chain with handlers that report invalid arguments as
// validation errors.
func goodServer() *server.MCPServer {
	s := server.NewMCPServer("good-shop", "1.0.0")
	s.Use(middleware.Default()...)
	closed := mcp.WithSchemaAdditionalProperties(false)
	readOnly := mcp.WithReadOnlyHintAnnotation(true)
	s.AddTool(mcp.NewTool("shop_search_products",
		mcp.WithDescription("Search the shop's catalogue by keyword. Use this when the user wants a product but has no product ID yet. Then call shop_get_product with a returned product_id."),
		mcp.WithString("query", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(200), mcp.Description("Keywords, in plain English.")),
		mcp.WithString("category", mcp.Enum("books", "games", "music")),
		mcp.WithNumber("limit", mcp.Min(1), mcp.Max(50)),
		closed, readOnly,
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		q, ok := req.GetArguments()["query"].(string)
		if !ok || q == "" || len(q) > 200 {
			return nil, envelope.New(envelope.ValidationError, "query must be a string of 1 to 200 characters")
		}
		if l, present := req.GetArguments()["limit"]; present {
			if f, ok := l.(float64); !ok || f < 1 || f > 50 {
				return nil, envelope.New(envelope.ValidationError, "limit must be a number from 1 to 50")
			}
		}
		return mcp.NewToolResultText("[]"), nil
	})
	s.AddTool(mcp.NewTool("shop_get_product",
		mcp.WithDescription("Get one product's details and stock. Use this after shop_search_products has returned a product_id. Then tell the user the price and stock."),
		mcp.WithString("product_id", mcp.Required(), mcp.Pattern(productID.String())),
		closed, readOnly,
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		id, ok := req.GetArguments()["product_id"].(string)
		if !ok || !productID.MatchString(id) {
			return nil, envelope.New(envelope.ValidationError, "product_id must look like prd_123456")
		}
		return nil, envelope.Wrap(envelope.NotFound, errors.New("no such product"))
	})
	s.AddTool(mcp.NewTool("shop_list_categories",
		mcp.WithDescription("List the shop's categories. Use this before shop_search_products when you need a valid category, then pass it to shop_search_products."),
		closed, readOnly,
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(`["books","games","music"]`), nil
	})
	return s
}

// badServer is plain mcp-go the way many servers are written.
func badServer() *server.MCPServer {
	s := server.NewMCPServer("bad-shop", "1.0.0", server.WithRecovery())
	s.AddTool(mcp.NewTool("search",
		mcp.WithDescription("Search."),
		mcp.WithString("query", mcp.Required()),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New(`pq: relation "products" does not exist`)
	})
	s.AddTool(mcp.NewTool("getProduct",
		mcp.WithDescription("Get a product."),
		mcp.WithString("id", mcp.Required()),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("lookup failed\ngoroutine 9 [running]:\nmain.getProduct()\n\t/home/dev/shop/product.go:31 +0x1d")
	})
	s.AddTool(mcp.NewTool("add-to-cart",
		mcp.WithDescription("Add a product to the cart."),
		mcp.WithString("product_id", mcp.Required()),
		mcp.WithNumber("quantity"),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("Error: bad product"), nil
	})
	return s
}

// generatedServer has n tools that follow the rules, behind mcpguard's
// Default chain, for timing an audit over stdio.
func generatedServer(n int) *server.MCPServer {
	s := server.NewMCPServer("generated", "1.0.0")
	s.Use(middleware.Default()...)
	for i := range n {
		s.AddTool(mcp.NewTool(fmt.Sprintf("gen_get_record_%03d", i),
			mcp.WithDescription(fmt.Sprintf("Get record group %d. Use this when the user asks about group %d, then call gen_get_record_%03d.", i, i, (i+1)%n)),
			mcp.WithString("record_id", mcp.Required(), mcp.Pattern("^r_[0-9]+$")),
			mcp.WithNumber("limit", mcp.Min(1), mcp.Max(100)),
			mcp.WithSchemaAdditionalProperties(false),
			mcp.WithReadOnlyHintAnnotation(true),
		), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, envelope.New(envelope.ValidationError, "record_id must look like r_123")
		})
	}
	return s
}
