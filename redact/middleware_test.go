package redact_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/redact"
)

func TestMiddlewareRedactsErrorResultsOnTheWire(t *testing.T) {
	t.Parallel()
	shared := mcp.NewToolResultError(`{"success":false,"error_type":"execution_failed","tool":"shop_tool","message":"dial postgres://u:hunter2@h/db","next_steps":["read /srv/app/README.md"],"retryable":false}`)
	before, _ := json.Marshal(shared)
	srv := middlewaretest.New(t, mcp.NewTool("shop_tool"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return shared, nil }, redact.Middleware())
	srv.Call(nil).NoLeak("hunter2", "/srv/app").ExpectError(envelope.ExecutionFailed) // an envelope stays an envelope
	after, _ := json.Marshal(shared)
	assert.JSONEq(t, string(before), string(after), "the handler's result is never modified in place")
}

func TestMiddlewareStructuredContentAndResources(t *testing.T) {
	t.Parallel()
	res := &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{
			mcp.TextContent{Type: "text", Text: "token=abc123"},
			mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "file:///log", Text: "password=hunter2"}),
			mcp.NewImageContent("aGk=", "image/png"),
		},
		StructuredContent: map[string]any{"dsn": "mysql://root:toor@h/db"},
	}
	out := redact.Result(redact.Default(), res)
	b, _ := json.Marshal(out)
	assert.NotContains(t, string(b), "abc123")
	assert.NotContains(t, string(b), "hunter2")
	assert.NotContains(t, string(b), "toor")
	assert.Contains(t, string(b), "aGk=")
	orig, _ := json.Marshal(res)
	assert.Contains(t, string(orig), "hunter2", "the original is untouched")
}

func TestSuccessesAreLeftAloneByDefault(t *testing.T) {
	ok := mcp.NewToolResultText("your new key: sk-proj-AbCdEf0123456789GhIjKlMn")
	next := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return ok, nil }
	h := redact.Middleware()(next)
	got, _ := h(context.Background(), mcp.CallToolRequest{})
	assert.Same(t, ok, got)
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = h(context.Background(), mcp.CallToolRequest{}) }))

	got, _ = redact.Middleware(redact.WithRedactSuccesses())(next)(context.Background(), mcp.CallToolRequest{})
	assert.NotContains(t, got.Content[0].(mcp.TextContent).Text, "AbCdEf0123456789")

	wantErr := errors.New("x")
	_, err := redact.Middleware()(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, wantErr })(context.Background(), mcp.CallToolRequest{})
	assert.Same(t, wantErr, err)
}
