package limit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
)

// shopGet fails as a shop does: a SKU that does not exist is not_found,
// not retryable, with a step of its own; "busy" is a retryable not_found
// (the index is being rebuilt); anything else is found.
func shopGet(runs *atomic.Int64) server.ToolHandlerFunc {
	return func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		switch sku := req.GetString("sku", ""); sku {
		case "busy":
			return nil, envelope.SetRetryable(envelope.New(envelope.NotFound, "the index is being rebuilt"), true)
		case "SKU-1":
			return mcp.NewToolResultText("found"), nil
		default:
			return nil, envelope.AddNextSteps(envelope.New(envelope.NotFound, "no product "+sku), "List the SKUs with shop_search first.")
		}
	}
}

// repeatServer is a shop behind the one line, middleware.Default(opts...).
func repeatServer(runs *atomic.Int64, opts ...middleware.Option) *server.MCPServer {
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(middleware.Default(opts...)...)
	s.AddTool(mcp.NewTool("shop_get", mcp.WithString("sku")), shopGet(runs))
	return s
}

// callAs sends tools/call of shop_get with args as principal and returns
// the envelope the client got (nil for a success).
func callAs(t *testing.T, s *server.MCPServer, principal string, args map[string]any) *envelope.Envelope {
	t.Helper()
	params, err := json.Marshal(map[string]any{"name": "shop_get", "arguments": args})
	require.NoError(t, err)
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":%s}`, params)
	resp, ok := s.HandleMessage(limit.ContextWithPrincipal(context.Background(), principal), json.RawMessage(msg)).(mcp.JSONRPCResponse)
	require.True(t, ok, "a JSON-RPC result, not an error")
	res := resp.Result.(*mcp.CallToolResult)
	if !res.IsError {
		return nil
	}
	env, ok := envelope.FromResult(res)
	require.True(t, ok, "every failure is an envelope")
	return env
}

// An agent that repeats a failing call 90 times runs the handler 3 times:
// the other 87 are answered with the failure's code, not retryable, a
// message that says so, and the failure's own next step.
func TestRepeatsAnAgentRepeatingAFailingCallRunsItThreeTimes(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	s := repeatServer(&runs)
	missing := map[string]any{"sku": "SKU-404"}
	var last *envelope.Envelope
	for i := range 90 {
		last = callAs(t, s, "alice", missing)
		require.NotNil(t, last, "call %d", i)
		require.Equal(t, envelope.NotFound, last.ErrorType, "call %d", i)
	}
	assert.EqualValues(t, limit.DefaultRepeatFailures, runs.Load(), "the handler ran N times, not 90")
	assert.False(t, last.Retryable)
	assert.Contains(t, last.Message, "already failed 3 times with these arguments (not_found)")
	assert.Contains(t, last.NextSteps, "List the SKUs with shop_search first.", "the failure's own next step")
	assert.Contains(t, last.NextSteps[0], "Do not repeat this call unchanged")

	// Another argument runs; so does the same SKU for another caller.
	require.Nil(t, callAs(t, s, "alice", map[string]any{"sku": "SKU-1"}))
	assert.Equal(t, "no product SKU-405", callAs(t, s, "alice", map[string]any{"sku": "SKU-405"}).Message)
	assert.Equal(t, "no product SKU-404", callAs(t, s, "bob", missing).Message, "two callers do not block each other")
	assert.EqualValues(t, 6, runs.Load())
}

func TestRepeatsNeverBlocksARetryableFailure(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	s := repeatServer(&runs)
	for range 20 {
		env := callAs(t, s, "alice", map[string]any{"sku": "busy"})
		require.NotNil(t, env)
		require.True(t, env.Retryable)
	}
	assert.EqualValues(t, 20, runs.Load(), "a retryable failure may succeed unchanged: every call runs")
}

func TestRepeatsCanBeConfiguredOrTurnedOff(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	s := repeatServer(&runs, middleware.WithRepeats(limit.Repeats(1, time.Hour)))
	for range 5 {
		callAs(t, s, "alice", map[string]any{"sku": "SKU-404"})
	}
	assert.EqualValues(t, 1, runs.Load(), "n 1: after one failure")
	runs.Store(0)
	off := repeatServer(&runs, middleware.WithRepeats(nil))
	for range 5 {
		callAs(t, off, "alice", map[string]any{"sku": "SKU-404"})
	}
	assert.EqualValues(t, 5, runs.Load(), "off")
	assert.PanicsWithValue(t, "limit: Repeats(0, 1h0m0s): need at least 1 failure and a positive window", func() { limit.Repeats(0, time.Hour) })
	assert.Panics(t, func() { limit.Repeats(1, 0) })
	assert.Panics(t, func() { limit.WithRepeatStore(nil) })
}

// A call's failures are forgotten window after the last: the call runs
// again.
func TestRepeatsForgetsAfterTheWindow(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	s := repeatServer(&runs, middleware.WithRepeats(limit.Repeats(1, 20*time.Millisecond)))
	callAs(t, s, "alice", map[string]any{"sku": "SKU-404"})
	require.Contains(t, callAs(t, s, "alice", map[string]any{"sku": "SKU-404"}).Message, "already failed once with these arguments")
	require.Eventually(t, func() bool {
		return !strings.Contains(callAs(t, s, "alice", map[string]any{"sku": "SKU-404"}).Message, "already failed")
	}, 10*time.Second, 5*time.Millisecond)
}
