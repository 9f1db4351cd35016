package audit_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
)

// calls records every call a test server receives.
type calls struct {
	mu   sync.Mutex
	args map[string][]map[string]any
}

func (c *calls) record(req mcp.CallToolRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.args == nil {
		c.args = map[string][]map[string]any{}
	}
	c.args[req.Params.Name] = append(c.args[req.Params.Name], req.GetArguments())
}

func (c *calls) count(tool string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.args[tool])
}

func (c *calls) all() map[string][]map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string][]map[string]any{}
	for k, v := range c.args {
		out[k] = append([]map[string]any(nil), v...)
	}
	return out
}

// goroutineStack is what a careless server puts on the wire.
const goroutineStack = "goroutine 7 [running]:\nmain.search(...)\n\t/home/dev/shop/search.go:42 +0x1d"

// badServer is plain mcp-go, the way many servers are written: handlers
// that return (nil, err), panics that server.WithRecovery turns into
// JSON-RPC errors carrying the panic value, plain-text isError results, a
// stack trace in an error result, a tool that ignores its schema, and a
// tool without arguments.
func badServer(rec *calls) *server.MCPServer {
	s := server.NewMCPServer("bad", "1.0.0", server.WithRecovery())
	h := func(f server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			rec.record(req)
			return f(ctx, req)
		}
	}
	s.AddTool(mcp.NewTool("shop_search",
		mcp.WithDescription("Search products."),
		mcp.WithString("query", mcp.Required(), mcp.MaxLength(100)),
	), h(func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("pq: relation \"products\" does not exist")
	}))
	s.AddTool(mcp.NewTool("shop_get_order",
		mcp.WithDescription("Get an order."),
		mcp.WithString("order_id", mcp.Required(), mcp.Pattern("^ord_[0-9]{6}$")),
	), h(func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var m map[string]string
		//lint:ignore SA5000 the nil map write is the panic under test
		m["x"] = req.GetString("order_id", "") // nil map: a real panic
		return nil, nil
	}))
	s.AddTool(mcp.NewTool("shop_cancel_order",
		mcp.WithDescription("Cancel an order."),
		mcp.WithString("order_id", mcp.Required(), mcp.Pattern("^ord_[0-9]{6}$")),
	), h(func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic(fmt.Sprintf("cancel failed\n%s", goroutineStack))
	}))
	s.AddTool(mcp.NewTool("shop_add_to_cart",
		mcp.WithDescription("Add to cart."),
		mcp.WithString("sku", mcp.Required(), mcp.Pattern("^[A-Z]{3}-[0-9]{4}$")),
		mcp.WithNumber("quantity", mcp.Min(1), mcp.Max(10)),
	), h(func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("Error: invalid sku"), nil
	}))
	s.AddTool(mcp.NewTool("shop_checkout",
		mcp.WithDescription("Check out."),
		mcp.WithString("cart_id", mcp.Required(), mcp.Pattern("^cart_[0-9]{6}$")),
	), h(func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError(`{"error":"INVALID_ARGUMENT","message":"checkout failed at /srv/shop/checkout.go:88"}`), nil
	}))
	s.AddTool(mcp.NewTool("shop_list_products",
		mcp.WithDescription("List products."),
		mcp.WithNumber("limit", mcp.Min(1), mcp.Max(50)),
	), h(func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("[]"), nil
	}))
	s.AddTool(mcp.NewTool("shop_reset",
		mcp.WithDescription("Reset the shop."),
	), h(func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("reset"), nil
	}))
	return s
}

// goodServer is the same shop with mcpguard's Default chain and handlers
// that report invalid arguments as validation errors.
func goodServer(rec *calls) *server.MCPServer {
	s := server.NewMCPServer("good", "1.0.0")
	// Declared schemas off: these tests probe what the handlers answer.
	s.Use(middleware.Default(middleware.WithoutDeclaredSchemas())...)
	tool := func(name string, opts ...mcp.ToolOption) mcp.Tool {
		return mcp.NewTool(name, append([]mcp.ToolOption{mcp.WithDescription("d")}, opts...)...)
	}
	requireString := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		rec.record(req)
		args := req.GetArguments()
		for _, name := range []string{"query", "order_id"} {
			if v, ok := args[name]; ok {
				if _, isString := v.(string); !isString {
					return nil, envelope.New(envelope.ValidationError, name+" must be a string")
				}
				return mcp.NewToolResultText("ok"), nil
			}
		}
		return nil, envelope.New(envelope.ValidationError, "a required argument is missing")
	}
	s.AddTool(tool("shop_search", mcp.WithString("query", mcp.Required(), mcp.MaxLength(100))), requireString)
	s.AddTool(tool("shop_get_order", mcp.WithString("order_id", mcp.Required(), mcp.Pattern("^ord_[0-9]{6}$"))), requireString)
	s.AddTool(tool("shop_list_products", mcp.WithNumber("limit", mcp.Min(1), mcp.Max(50))),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			rec.record(req)
			if v, ok := req.GetArguments()["limit"]; ok {
				if f, ok := v.(float64); !ok || f < 1 || f > 50 {
					return nil, envelope.Wrap(envelope.ValidationError, fmt.Errorf("limit must be a number from 1 to 50"))
				}
			}
			return mcp.NewToolResultText("[]"), nil
		})
	s.AddTool(tool("shop_reset"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		rec.record(req)
		return mcp.NewToolResultText("reset"), nil
	})
	return s
}

// goodServerChain is Default with its incident records discarded, to keep
// test output readable.
func goodServerChain() []server.ToolHandlerMiddleware {
	// Declared schemas off: these tests probe what the handlers answer.
	return middleware.Default(middleware.WithLogger(slog.New(slog.DiscardHandler)), middleware.WithoutDeclaredSchemas())
}
