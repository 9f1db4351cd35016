package middleware_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

func TestWithLimitsSitsInsideEnvelopeAndRecover(t *testing.T) {
	t.Parallel()
	refusing := func(server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, envelope.ErrExecutionFailed
		}
	}
	panicking := func(server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("limit layer") }
	}
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	tool := mcp.NewTool("shop_search")
	middlewaretest.New(t, tool, ok, middleware.Default(middleware.WithLimits(refusing))...).
		Call(nil).ExpectError(envelope.ExecutionFailed)
	middlewaretest.New(t, tool, ok, middleware.Default(middleware.WithLimits(panicking))...).
		Call(nil).ExpectError(envelope.InternalError).NoLeak("limit layer")
	middlewaretest.New(t, tool, ok, middleware.Default(middleware.WithLimits(nil))...).
		Call(nil).ExpectSuccess()
}
