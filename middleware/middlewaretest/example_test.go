package middlewaretest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// The handler under test: it fails with a sentinel for an unknown ID and
// with a raw driver error that holds a DSN password otherwise.
func getCard(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	switch req.GetString("id", "") {
	case "c-1":
		return mcp.NewToolResultText("card c-1"), nil
	case "c-2":
		return nil, errors.New("dial postgres://app:hunter2@db:5432/cards: connection refused")
	}
	return nil, fmt.Errorf("card %q: %w", req.GetString("id", ""), envelope.ErrNotFound)
}

func Example() {
	// In a real test this is the *testing.T of your test function.
	t := &testing.T{}
	tool := mcp.NewTool("cards_get", mcp.WithString("id", mcp.Required()))
	srv := middlewaretest.New(t, tool, getCard, middleware.Default()...)

	res := srv.Call(map[string]any{"id": "c-9"}).ExpectError(envelope.NotFound).NoLeak()
	fmt.Println(res.Envelope.ErrorType, "-", res.Envelope.Message)

	res = srv.Call(map[string]any{"id": "c-2"}).NoLeak("hunter2")
	fmt.Println(res.Envelope.ErrorType, "- retryable:", res.Envelope.Retryable)

	fmt.Println(srv.Call(map[string]any{"id": "c-1"}).ExpectSuccess().Text())
	fmt.Println("failed:", t.Failed())
	// Output:
	// not_found - card "c-9": not found
	// internal_error - retryable: true
	// card c-1
	// failed: false
}
