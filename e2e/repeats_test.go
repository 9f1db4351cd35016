package e2e_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
	gosdklimit "github.com/mcpguard/mcpguard/gosdk/limit"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/redisstore"
	"github.com/mcpguard/mcpguard/redisstore/redistest"
)

// notFound is a tool call that fails as an agent's repeated call does:
// not_found, not retryable, with a step of its own.
var notFound = envelope.AddNextSteps(envelope.New(envelope.NotFound, "no product SKU-404"), "List the SKUs with shop_search first.")

// TestRepeatsThreeReplicasShareTheCountThroughRedis: a scripted agent,
// authenticated as one principal, sends the same failing call 90 times,
// round-robin over three replicas (three servers, each with its own Redis
// client, one Redis), on each SDK: the handlers run 3 times in all, and
// the 87 other calls are held back by whichever replica got them,
// retryable, quoting the failure and its next step.
func TestRepeatsThreeReplicasShareTheCountThroughRedis(t *testing.T) {
	srv := redistest.Start(t)
	open := func(prefix string) *redisstore.Store {
		s, err := redisstore.Open(srv.URL(), redisstore.WithPrefix(prefix))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	var runs atomic.Int64
	t.Run("mcp-go", func(t *testing.T) {
		runs.Store(0)
		var replicas [3]*server.MCPServer
		for i := range replicas {
			s := server.NewMCPServer("shop", "1.0.0")
			s.Use(middleware.Default(middleware.WithRepeats(limit.Repeats(3, time.Hour, limit.WithRepeatBackoff(time.Hour, time.Hour),
				limit.WithRepeatStore(open("mcp-go:")), limit.WithStoreTimeout(time.Second))))...)
			s.AddTool(mcp.NewTool("shop_get", mcp.WithString("sku")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				runs.Add(1)
				return nil, notFound
			})
			replicas[i] = s
		}
		msg := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_get","arguments":{"sku":"SKU-404"}}}`)
		var last *envelope.Envelope
		alice := limit.ContextWithPrincipal(context.Background(), "alice")
		for i := range 90 {
			resp := replicas[i%3].HandleMessage(alice, msg).(mcp.JSONRPCResponse)
			env, ok := envelope.FromResult(resp.Result.(*mcp.CallToolResult))
			want := envelope.NotFound
			if i >= 3 {
				want = envelope.ExecutionFailed // held back
			}
			if !ok || env.ErrorType != want {
				t.Fatalf("call %d: want a %s envelope, got %+v", i, want, resp.Result)
			}
			last = env
		}
		if n := runs.Load(); n != 3 {
			t.Fatalf("3 replicas ran the handler %d times for 90 identical failing calls, want 3", n)
		}
		if !last.Retryable || last.RetryAfterMS <= 0 || !slices.Contains(last.NextSteps, "List the SKUs with shop_search first.") {
			t.Fatalf("the guard's answer: %+v", last)
		}
	})
	t.Run("go-sdk", func(t *testing.T) {
		runs.Store(0)
		var replicas [3]*gosdktest.Session
		for i := range replicas {
			s := gomcp.NewServer(&gomcp.Implementation{Name: "shop", Version: "0"}, nil)
			// One principal on every replica, as a server that authenticates
			// its callers names them.
			alice := func(context.Context, *gomcp.CallToolRequest) string { return "principal:alice" }
			s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithRepeats(gosdklimit.Repeats(3, time.Hour,
				gosdklimit.WithKey(alice), gosdklimit.WithRepeatBackoff(time.Hour, time.Hour),
				gosdklimit.WithRepeatStore(open("go-sdk:")), gosdklimit.WithStoreTimeout(time.Second)))))
			s.AddTool(&gomcp.Tool{Name: "shop_get", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *gomcp.CallToolRequest) (*gomcp.CallToolResult, error) {
				runs.Add(1)
				return nil, notFound
			})
			replicas[i] = gosdktest.Connect(t, s)
		}
		for i := range 90 {
			want := gosdk.NotFound
			if i >= 3 {
				want = gosdk.ExecutionFailed // held back
			}
			replicas[i%3].Call("shop_get", map[string]any{"sku": "SKU-404"}).ExpectError(want)
		}
		if n := runs.Load(); n != 3 {
			t.Fatalf("3 replicas ran the handler %d times for 90 identical failing calls, want 3", n)
		}
	})
}
