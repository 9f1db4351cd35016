package middleware_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	mcprecover "github.com/mcpguard/mcpguard/recover"
	"github.com/mcpguard/mcpguard/redact"
)

// Each option of Default reaches the layer it configures, on the wire.
func TestDefaultOptionsReachTheirLayers(t *testing.T) {
	t.Parallel()
	tool := mcp.NewTool("shop_tool")
	answer := func(res *mcp.CallToolResult, err error) func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, err }
	}

	t.Run("WithRecoverOptions", func(t *testing.T) {
		t.Parallel()
		var seen atomic.Value
		logs := middlewaretest.NewLog(t)
		panicky := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("boom") }
		srv := middlewaretest.New(t, tool, panicky, middleware.Default(middleware.WithLogger(logs.Logger()),
			middleware.WithRecoverOptions(mcprecover.WithOnPanic(func(_ context.Context, _ mcp.CallToolRequest, p mcprecover.Panic) {
				seen.Store(p.IncidentID)
			})))...)
		env := expect(t, srv.Call(nil), envelope.InternalError)
		assert.Equal(t, env.IncidentID, seen.Load())
	})

	t.Run("WithRedactor", func(t *testing.T) {
		t.Parallel()
		emp := redact.Default().With(redact.NewRule("employee-id", `\bEMP-\d{6}\b`, "EMP-[REDACTED]", "emp-"))
		h := answer(nil, envelope.New(envelope.NotFound, "employee EMP-123456 not found"))
		middlewaretest.New(t, tool, h, middleware.Default(middleware.WithRedactor(emp))...).Call(nil).
			ExpectError(envelope.NotFound).ExpectMessage("employee EMP-[REDACTED] not found")
		middlewaretest.New(t, tool, h, middleware.Default()...).Call(nil).
			ExpectError(envelope.NotFound).ExpectMessage("employee EMP-123456 not found")
	})

	t.Run("WithRedactOptions", func(t *testing.T) {
		t.Parallel()
		h := answer(mcp.NewToolResultText("connected to postgres://app:hunter2@db/shop"), nil)
		plain := middlewaretest.New(t, tool, h, middleware.Default()...).Call(nil).ExpectSuccess()
		assert.Contains(t, string(plain.Raw), "hunter2", "successes are not redacted unless asked")
		middlewaretest.New(t, tool, h, middleware.Default(middleware.WithRedactOptions(redact.WithRedactSuccesses()))...).Call(nil).
			ExpectSuccess().NoLeak("hunter2")
	})
}
