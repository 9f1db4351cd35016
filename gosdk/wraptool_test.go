package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

var errDenied = errors.New("store: access denied")

// readGraph is a memory-server handler after its migration to Go errors:
// its own access error, mapped by the chain, and a plain success.
func readGraph(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if string(req.Params.Arguments) == `{"who":"guest"}` {
		return nil, fmt.Errorf("read graph for guest: %w", errDenied)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
}

// A handler-level test that calls the handler directly gets, through
// WrapTool and the chain's own middleware, what a client gets on the wire:
// before, the only shim (ErrorResult without a server in the context)
// ignored the chain's mapping and answered internal_error, message hidden.
func TestWrapToolAnswersAsTheChainDoes(t *testing.T) {
	t.Parallel()
	guard := gosdk.Middleware(gosdk.WithMapping(errDenied, gosdk.AccessDenied))
	req := func(args string) *mcp.CallToolRequest {
		return &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "read_graph", Arguments: json.RawMessage(args)}}
	}

	res, err := gosdk.WrapTool(readGraph, guard)(context.Background(), req(`{"who":"guest"}`))
	require.NoError(t, err)
	require.True(t, res.IsError)
	env, ok := gosdk.Parse(res.Content[0].(*mcp.TextContent).Text)
	require.True(t, ok)
	assert.Equal(t, gosdk.AccessDenied, env.ErrorType)
	assert.Equal(t, "read graph for guest: store: access denied", env.Message)

	shim := gosdk.ErrorResult(context.Background(), req(`{"who":"guest"}`), fmt.Errorf("read graph for guest: %w", errDenied))
	shimEnv, _ := gosdk.Parse(shim.Content[0].(*mcp.TextContent).Text)
	assert.Equal(t, gosdk.InternalError, shimEnv.ErrorType, "ErrorResult alone knows no chain: the reason WrapTool exists")

	ok2, err := gosdk.WrapTool(readGraph, guard)(context.Background(), req(`{}`))
	require.NoError(t, err)
	assert.False(t, ok2.IsError)

	// The same handler on the wire, behind the same middleware, answers
	// the same envelope.
	s := mcp.NewServer(&mcp.Implementation{Name: "memory", Version: "0.0.0"}, nil)
	s.AddReceivingMiddleware(guard)
	lowLevel(s, "read_graph", readGraph)
	wire := gosdktest.Connect(t, s).Call("read_graph", map[string]any{"who": "guest"}).ExpectError(gosdk.AccessDenied)
	assert.Equal(t, env.Message, wire.Envelope.Message)
}
