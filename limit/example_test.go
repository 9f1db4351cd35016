package limit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
)

func Example() {
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(middleware.Default(middleware.WithLimits(
		limit.Rate(rate.Every(time.Hour), 1), // one call per hour, per caller
		limit.Concurrency(8),
		limit.Timeout(10*time.Second, limit.WithToolTimeout("shop_report", time.Minute)),
	))...)
	s.AddTool(mcp.NewTool("shop_search"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("3 products"), nil
	})

	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_search"}}`
	for range 2 {
		resp := s.HandleMessage(context.Background(), json.RawMessage(call)).(mcp.JSONRPCResponse)
		res := resp.Result.(*mcp.CallToolResult)
		if env, ok := envelope.FromResult(res); ok {
			fmt.Println(env.ErrorType, env.Retryable, env.RetryAfterMS > 3_500_000)
			fmt.Println(digits.ReplaceAllString(env.NextSteps[0], "N"))
			continue
		}
		fmt.Println(res.Content[0].(mcp.TextContent).Text)
	}
	// Output:
	// 3 products
	// execution_failed true true
	// Wait N ms (retry_after_ms), then repeat this call unchanged; calling sooner will be refused again.
}

var digits = regexp.MustCompile(`[0-9]+`)

// A handler that ignores its context keeps its Concurrency slot after
// Timeout has answered, until it returns: n bounds the handlers running.
func Example_timeoutAndConcurrency() {
	release := make(chan struct{})
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(middleware.Default(middleware.WithLimits(
		limit.Concurrency(1, limit.WithMaxWait(0)),
		limit.Timeout(20*time.Millisecond),
	))...)
	s.AddTool(mcp.NewTool("shop_search"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-release // a backend call that ignores ctx
		return mcp.NewToolResultText("3 products"), nil
	})

	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_search"}}`
	for range 2 {
		resp := s.HandleMessage(context.Background(), json.RawMessage(call)).(mcp.JSONRPCResponse)
		env, _ := envelope.FromResult(resp.Result.(*mcp.CallToolResult))
		fmt.Println(env.Message, env.RetryAfterMS)
	}
	close(release)
	// Output:
	// shop_search did not finish within 20ms: context deadline exceeded 0
	// Too many calls at once: this server runs at most 1 at a time, and all were busy: it does not wait for one to finish. 100
}

func ExampleHTTPContext() {
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(middleware.Default(middleware.WithLimits(limit.Rate(10, 20)))...)
	// Rate's DefaultKey now keys HTTP callers by their address.
	_ = server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(limit.HTTPContext))

	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.RemoteAddr = "[2001:db8:1:2::7]:51234"
	fmt.Println(limit.RemoteAddrFromContext(limit.HTTPContext(context.Background(), r)))
	// Output:
	// 2001:db8:1:2::/64
}

// downStore is a store whose every call fails, as a Redis that is down.
type downStore struct{}

func (downStore) Limiter(rate.Limit, int) limit.Limiter { return downStore{} }
func (downStore) Take(context.Context, string, string) (time.Duration, bool, error) {
	return 0, false, fmt.Errorf("dial tcp 10.0.0.7:6379: connection refused")
}

// With its buckets in a store every replica shares (in production
// redisstore.Open("redis://…")), Rate decides a call the store cannot
// decide by WithFailClosed: here it refuses, retryable, in a second.
func ExampleWithStore() {
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(middleware.Default(middleware.WithLimits(
		limit.Rate(50, 50, limit.WithStore(downStore{}), limit.WithFailClosed(),
			limit.WithStoreTimeout(10*time.Millisecond), limit.WithLogger(slog.New(slog.DiscardHandler))),
	))...)
	s.AddTool(mcp.NewTool("shop_search"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("3 products"), nil
	})
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_search"}}`
	resp := s.HandleMessage(context.Background(), json.RawMessage(call)).(mcp.JSONRPCResponse)
	env, _ := envelope.FromResult(resp.Result.(*mcp.CallToolResult))
	fmt.Println(env.ErrorType, env.Retryable, env.RetryAfterMS)
	fmt.Println(env.Message)
	// Output:
	// execution_failed true 1000
	// Rate limit could not be checked: this server's shared rate-limit store is unavailable, so calls are refused until it is back.
}

// middleware.Default() has the repeated-failure guard: an agent that
// repeats a call that failed with not_found runs the handler three
// times; the fourth identical call of the same session is answered
// without running it, retryable after a short wait, quoting the failure.
func ExampleRepeats() {
	runs := 0
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(middleware.Default()...) // limit.Repeats(3, 10*time.Minute) inside
	s.AddTool(mcp.NewTool("shop_get", mcp.WithString("sku")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs++
		return nil, envelope.New(envelope.NotFound, "no product SKU-404")
	})
	// The session a transport (stdio, streamable HTTP) gives each call.
	ctx := s.WithContext(context.Background(), server.NewInProcessSession("session-1", nil))
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop_get","arguments":{"sku":"SKU-404"}}}`
	var env *envelope.Envelope
	for range 10 {
		resp := s.HandleMessage(ctx, json.RawMessage(call)).(mcp.JSONRPCResponse)
		env, _ = envelope.FromResult(resp.Result.(*mcp.CallToolResult))
	}
	fmt.Println(runs, env.ErrorType, env.Retryable, env.RetryAfterMS <= 1000)
	fmt.Println(env.Message)
	// Output:
	// 3 execution_failed true true
	// Not run: this call of shop_get, with these arguments, already failed 3 times since a call of yours last succeeded, and repeated unchanged it is likely to fail the same way. The last time it ran, it failed with not_found: no product SKU-404
}
