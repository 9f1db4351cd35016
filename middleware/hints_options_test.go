package middleware_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/redact"
)

// WithHints and WithHintRegistry put the hints layer where core/pipeline's
// admission order puts it: a declared-schema refusal carries the tool's
// validation_error step, as a failure of the handler does; WithHints's
// steps go through the chain's redactor.
func TestDefaultHints(t *testing.T) {
	t.Parallel()
	tool := mcp.NewTool("shop_order", mcp.WithNumber("qty", mcp.Required()))
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ordered"), nil
	}
	const step = "Call shop_stock first: qty must be a number of items in stock."
	rule := hints.For("shop_order", hints.OnError(envelope.ValidationError, hints.Text(step)))
	// A rule of the chain's own redactor, which the default one lacks.
	secret := hints.For("shop_order", hints.OnError(envelope.ValidationError, hints.Text("Ask for order code ORD-7731-SECRET.")))
	own := redact.Default().With(redact.NewRule("order-code", `ORD-\d+-SECRET`, "[ORDER]", "ORD-"))
	for name, opts := range map[string][]middleware.Option{
		"WithHints":                  {middleware.WithHints(rule)},
		"WithHintRegistry":           {middleware.WithHintRegistry(hints.New([]hints.Rule{rule}))},
		"WithHints and WithRedactor": {middleware.WithHints(rule, secret), middleware.WithRedactor(own)},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := middlewaretest.New(t, tool, ok, middleware.Default(opts...)...)
			r := srv.Call(map[string]any{"qty": "many"}).ExpectError(envelope.ValidationError)
			assert.Contains(t, r.Envelope.NextSteps, step, "the declared check's refusal carries the tool's step")
			steps := strings.Join(r.Envelope.NextSteps, "\n")
			assert.NotContains(t, steps, "ORD-7731-SECRET", "a hint's text goes through the chain's redactor")
			if name == "WithHints and WithRedactor" {
				assert.Contains(t, steps, "Ask for order code [ORDER].")
			}
		})
	}
	// A success's hint is no envelope the chain's renderer redacts: the
	// hints layer redacts it with the chain's redactor.
	onSuccess := hints.For("shop_order", hints.OnSuccess(hints.Text("Track it with code ORD-7731-SECRET.")))
	tracked := middlewaretest.New(t, tool, ok, middleware.Default(middleware.WithHints(onSuccess), middleware.WithRedactor(own))...)
	text := tracked.Call(map[string]any{"qty": 2}).ExpectSuccess().Text()
	assert.Contains(t, text, "Track it with code [ORDER].")
	assert.NotContains(t, text, "ORD-7731-SECRET")

	srv := middlewaretest.New(t, tool, ok, middleware.Default()...)
	r := srv.Call(map[string]any{"qty": "many"}).ExpectError(envelope.ValidationError)
	assert.NotContains(t, r.Envelope.NextSteps, step, "no hints without the option")

	assert.PanicsWithValue(t, "middleware.WithHints: zero Rule; build rules with hints.For", func() { middleware.WithHints(hints.Rule{}) })
	assert.PanicsWithValue(t, "middleware.WithHintRegistry: nil registry", func() { middleware.WithHintRegistry(nil) })
	assert.PanicsWithValue(t, "middleware.Default: both WithHints and WithHintRegistry; put every rule in one", func() {
		middleware.Default(middleware.WithHints(rule), middleware.WithHintRegistry(hints.New([]hints.Rule{rule})))
	})
}

// WithoutDeclaredSchemas() with no tool named turns the declared check
// off for the whole chain: the handler reads what the client sent.
func TestDefaultWithoutDeclaredSchemas(t *testing.T) {
	t.Parallel()
	tool := mcp.NewTool("shop_order", mcp.WithNumber("qty", mcp.Required()))
	h := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("qty " + req.GetString("qty", "?")), nil
	}
	srv := middlewaretest.New(t, tool, h, middleware.Default(middleware.WithoutDeclaredSchemas())...)
	assert.Equal(t, "qty many", srv.Call(map[string]any{"qty": "many"}).ExpectSuccess().Text())
}
