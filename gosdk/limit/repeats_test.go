package limit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	corelimit "github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
	"github.com/mcpguard/mcpguard/gosdk/limit"
)

// shopGet fails as a shop does: a SKU that does not exist is not_found,
// not retryable, with a step of its own; "busy" is a retryable
// not_found; "SKU-1" is found.
func shopGet(runs *atomic.Int64) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		var args struct{ SKU string }
		_ = json.Unmarshal(req.Params.Arguments, &args)
		switch args.SKU {
		case "busy":
			return nil, gosdk.SetRetryable(gosdk.New(gosdk.NotFound, "the index is being rebuilt"), true)
		case "SKU-1":
			return ok(context.Background(), req)
		}
		return nil, gosdk.AddNextSteps(gosdk.New(gosdk.NotFound, "no product "+args.SKU), "List the SKUs with shop_search first.")
	}
}

// repeatShop is the shop behind the one line, gosdk.Middleware(opts...).
func repeatShop(t *testing.T, runs *atomic.Int64, opts ...gosdk.Option) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "0"}, nil)
	s.AddReceivingMiddleware(gosdk.Middleware(opts...))
	s.AddTool(&mcp.Tool{Name: "shop_get", InputSchema: objectSchema}, shopGet(runs))
	return s
}

// An agent repeating a failing call 90 times runs the handler 3 times on
// gosdk.Middleware() with no option; another argument runs.
func TestRepeatsAnAgentRepeatingAFailingCallRunsItThreeTimes(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	c := gosdktest.Connect(t, repeatShop(t, &runs))
	missing := map[string]any{"sku": "SKU-404"}
	var last *gosdktest.Result
	for range 90 {
		last = c.Call("shop_get", missing).ExpectError(gosdk.NotFound)
	}
	if n := runs.Load(); n != limit.DefaultRepeatFailures {
		t.Fatalf("the handler ran %d times for 90 identical failing calls, want %d", n, limit.DefaultRepeatFailures)
	}
	last.ExpectMessage("already failed 3 times with these arguments (not_found)").ExpectNextStep("List the SKUs with shop_search first.")
	if last.Envelope.Retryable {
		t.Fatalf("the guard's answer is retryable: %s", last.Raw)
	}
	c.Call("shop_get", map[string]any{"sku": "SKU-1"}).ExpectSuccess()
	c.Call("shop_get", map[string]any{"sku": "SKU-405"}).ExpectError(gosdk.NotFound).ExpectMessage("no product SKU-405")
	for range 20 {
		if r := c.Call("shop_get", map[string]any{"sku": "busy"}).ExpectError(gosdk.NotFound); !r.Envelope.Retryable {
			t.Fatalf("a retryable failure was answered by the guard: %s", r.Raw)
		}
	}
	if n := runs.Load(); n != 3+2+20 {
		t.Fatalf("%d runs, want 25: other arguments and retryable failures always run", n)
	}
}

// Two callers (here, two sessions: the guard's own key function) do not
// block each other; WithRepeats(nil) turns the guard off.
func TestRepeatsTwoCallersDoNotBlockEachOther(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	// In memory a session has no ID: its address tells the two apart.
	bySession := func(_ context.Context, req *mcp.CallToolRequest) string { return fmt.Sprintf("%p", req.Session) }
	srv := repeatShop(t, &runs, gosdk.WithRepeats(limit.Repeats(2, time.Hour, limit.WithKey(bySession))))
	a, b := gosdktest.Connect(t, srv), gosdktest.Connect(t, srv)
	missing := map[string]any{"sku": "SKU-404"}
	for range 5 {
		a.Call("shop_get", missing).ExpectError(gosdk.NotFound)
	}
	b.Call("shop_get", missing).ExpectError(gosdk.NotFound).ExpectMessage("no product SKU-404")
	if n := runs.Load(); n != 3 {
		t.Fatalf("%d runs, want 2 for a and 1 for b", n)
	}
	runs.Store(0)
	off := gosdktest.Connect(t, repeatShop(t, &runs, gosdk.WithRepeats(nil)))
	for range 5 {
		off.Call("shop_get", missing).ExpectError(gosdk.NotFound)
	}
	if n := runs.Load(); n != 5 {
		t.Fatalf("off: %d runs, want 5", n)
	}
}

func TestRepeatsPanicsOnBadConfiguration(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]func(){
		"n 0":        func() { limit.Repeats(0, time.Hour) },
		"window 0":   func() { limit.Repeats(1, 0) },
		"nil store":  func() { limit.WithRepeatStore(nil) },
		"nil guard":  func() { gosdk.NewRepeats(nil, gosdk.CallerKey) },
		"nil key fn": func() { gosdk.NewRepeats(corelimit.NewRepeats(1, time.Hour, nil, 1, 0), nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
