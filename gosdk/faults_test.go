package gosdk_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// panicking is a receiving middleware that panics on tools/call.
func panicking(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			panic("middleware bug")
		}
		return next(ctx, method, req)
	}
}

// A middleware added before gosdk.Middleware runs inside it: its panic
// ends as an envelope.
func TestPanicInAMiddlewareInsideEndsAsAnEnvelope(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
	s.AddReceivingMiddleware(panicking)
	s.AddReceivingMiddleware(gosdk.Middleware())
	mcp.AddTool(s, &mcp.Tool{Name: "shop_get"}, getProduct)
	c := gosdktest.Connect(t, s)
	c.Call("shop_get", map[string]any{"id": "p-1"}).ExpectError(gosdk.InternalError).NoLeak("middleware bug")
	c.Call("shop_get", map[string]any{"id": "p-1"}).ExpectError(gosdk.InternalError)
}

// A middleware added after gosdk.Middleware runs outside it, and go-sdk
// v1.8.0 recovers nowhere: its panic ends the process. This test proves it
// in a child process, so that the day go-sdk starts recovering, the
// package documentation is revisited.
func TestPanicInAMiddlewareOutsideEndsTheProcess(t *testing.T) {
	if os.Getenv("GOSDK_OUTER_PANIC_CHILD") == "1" {
		s := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
		s.AddReceivingMiddleware(gosdk.Middleware())
		s.AddReceivingMiddleware(panicking)
		mcp.AddTool(s, &mcp.Tool{Name: "shop_get"}, getProduct)
		gosdktest.Connect(t, s).Call("shop_get", map[string]any{"id": "p-1"})
		fmt.Println("SURVIVED")
		return
	}
	if testing.Short() {
		t.Skip("runs a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPanicInAMiddlewareOutsideEndsTheProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GOSDK_OUTER_PANIC_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil || strings.Contains(string(out), "SURVIVED") {
		t.Fatalf("the child survived a panic outside the Middleware; go-sdk recovers now, update the docs:\n%s", out)
	}
	if !strings.Contains(string(out), "panic: middleware bug") {
		t.Errorf("the child did not die of the panic:\n%s", out)
	}
}

// 50 streamable-HTTP clients at once, half of their calls failing: every
// failure is an envelope, never a JSON-RPC error, and no goroutine is left
// once the server and the clients are closed.
func TestConcurrentStreamableHTTPClients(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		s := newGuardedServer()
		mcp.AddTool(s, &mcp.Tool{Name: "shop_get"}, getProduct)
		lowLevel(s, "db_query", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("db password=hunter2 at %s", dsn)
		})
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
		srv := httptest.NewServer(h)
		defer srv.Close()
		// A sub-test owns the clients, so that their cleanups (closing
		// the sessions) run before the server closes.
		t.Run("clients", func(t *testing.T) {
			var wg sync.WaitGroup
			for i := range 50 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c := gosdktest.Dial(t, &mcp.StreamableClientTransport{Endpoint: srv.URL})
					for j := range 4 {
						switch (i + j) % 4 {
						case 0:
							c.Call("shop_get", map[string]any{"id": "p-1"}).ExpectSuccess()
						case 1:
							c.Call("shop_get", map[string]any{"id": "p-9"}).ExpectError(gosdk.NotFound)
						case 2:
							c.Call("db_query", nil).ExpectError(gosdk.InternalError).NoLeak("hunter2")
						case 3:
							c.Call("shop_get", map[string]any{"id": "p-3"}).ExpectError(gosdk.ExecutionFailed)
						}
					}
				}()
			}
			wg.Wait()
		})
	}()
	// Goroutines end asynchronously after Close; poll, with a hang guard
	// rather than a time budget.
	for i := 0; ; i++ {
		if n := runtime.NumGoroutine(); n <= before {
			return
		} else if i == 500 {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left after shutdown (%d before):\n%s", n-before, before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A layer inside that answers with a result and an error both: the error
// is the answer, and nothing of the result reaches the client, as
// go-sdk itself would send only the error.
func TestAResultThatCameWithAnErrorIsDropped(t *testing.T) {
	t.Parallel()
	both := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				return &mcp.CallToolResult{
					Content: []mcp.Content{&mcp.TextContent{Text: "half-written"}, &mcp.ImageContent{MIMEType: "image/png", Data: []byte("png")}},
					Meta:    mcp.Meta{"partial": true},
				}, gosdk.New(gosdk.NotFound, "no product p-1")
			}
			return next(ctx, method, req)
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
	s.AddReceivingMiddleware(both)
	s.AddReceivingMiddleware(gosdk.Middleware())
	mcp.AddTool(s, &mcp.Tool{Name: "shop_get"}, getProduct)
	r := gosdktest.Connect(t, s).Call("shop_get", map[string]any{"id": "p-1"}).ExpectError(gosdk.NotFound)
	for _, gone := range []string{"half-written", "image/png", "partial"} {
		if strings.Contains(string(r.Raw), gone) {
			t.Errorf("the response keeps %q of the result that came with the error: %s", gone, r.Raw)
		}
	}
}
