package gosdktest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

func Example() {
	// In a real test this is the *testing.T of your test function.
	t := &testing.T{}
	server := mcp.NewServer(&mcp.Implementation{Name: "cards"}, nil)
	server.AddReceivingMiddleware(gosdk.Middleware())
	server.AddTool(&mcp.Tool{Name: "cards_get", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("dial postgres://app:hunter2@db:5432/cards: connection refused")
		})
	s := gosdktest.Connect(t, server)

	r := s.Call("cards_get", map[string]any{"id": "c-2"}).ExpectError(gosdk.InternalError).NoLeak("hunter2")
	fmt.Println(r.Envelope.ErrorType, "- retryable:", r.Envelope.Retryable)
	s.Call("cards_list", nil).ExpectProtocolError(-32602)
	fmt.Println("failed:", t.Failed())
	// Output:
	// internal_error - retryable: true
	// failed: false
}

func ExampleLeaks() {
	fmt.Println(gosdktest.Leaks([]byte(`{"result":{"content":[{"type":"text","text":"open /home/alice/.ssh/id_rsa: denied"}]}}`)))
	fmt.Println(gosdktest.Leaks([]byte(`{"result":{"content":[{"type":"text","text":"no such product"}]}}`)))
	// Output:
	// [an absolute file path (/home/alice/.ssh/id_rsa)]
	// []
}
