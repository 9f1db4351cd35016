package limit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
	"github.com/mcpguard/mcpguard/gosdk/limit"
)

const tool = "shop_search"

var objectSchema = json.RawMessage(`{"type":"object"}`)

// serve returns a client of a go-sdk server whose one tool is h, behind
// gosdk.Middleware with the given limits and options.
func serve(t *testing.T, h mcp.ToolHandler, layers []mcp.Middleware, opts ...gosdk.Option) *gosdktest.Session {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "0"}, nil)
	s.AddReceivingMiddleware(gosdk.Middleware(append(opts, gosdk.WithLimits(layers...))...))
	s.AddTool(&mcp.Tool{Name: tool, InputSchema: objectSchema}, h)
	return gosdktest.Connect(t, s)
}

func ok(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
}

// deaf is a handler that ignores its context: it runs until the test
// releases it, and counts how many of it run at once.
type deaf struct {
	running atomic.Int64
	peak    atomic.Int64
	started atomic.Int64
	release chan struct{}
}

func newDeaf() *deaf { return &deaf{release: make(chan struct{})} }

func (d *deaf) handle(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	d.started.Add(1)
	n := d.running.Add(1)
	for p := d.peak.Load(); n > p && !d.peak.CompareAndSwap(p, n); p = d.peak.Load() {
	}
	defer d.running.Add(-1)
	<-d.release
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late"}}}, nil
}

func TestTimeoutAnswersWithTheEnvelope(t *testing.T) {
	d := newDeaf()
	c := serve(t, d.handle, []mcp.Middleware{limit.Timeout(20 * time.Millisecond)})
	r := c.Call(tool, nil).ExpectError(gosdk.ExecutionFailed).
		ExpectMessage("shop_search did not finish within 20ms").
		ExpectNextStep("Make the call cheaper").NoLeak()
	if r.Envelope == nil || !r.Envelope.Retryable {
		t.Fatalf("a timeout is retryable: %s", r.Raw)
	}
	close(d.release)
	waitForNoLimitGoroutines(t)
}

// TestTimeoutLeavesNoGoroutineBehind: a handler that ignores its context
// runs on after its caller was answered, and once it returns, nothing of
// the limits is left running.
func TestTimeoutLeavesNoGoroutineBehind(t *testing.T) {
	d := newDeaf()
	c := serve(t, d.handle, []mcp.Middleware{limit.Timeout(10 * time.Millisecond)})
	for range 3 {
		c.Call(tool, nil).ExpectError(gosdk.ExecutionFailed).ExpectMessage("did not finish within")
	}
	if n, _ := limitGoroutines(); n == 0 {
		t.Fatal("the late handlers' goroutines are not found while they run: the check below proves nothing")
	}
	close(d.release)
	waitForNoLimitGoroutines(t)
	if n := d.running.Load(); n != 0 {
		t.Fatalf("%d handlers still running", n)
	}
}

// TestConcurrencyCountsHandlersTimeoutLeftRunning: with n = 2 and a 30 ms
// timeout, 12 sequential calls to a handler that ignores its context leave
// at most 2 handlers running, in either order of the two layers; the
// others are refused with retry_after_ms. A Concurrency that freed its
// slot with Timeout's answer would let all 12 run. With Timeout outside,
// a refusal can come after the 30 ms on a loaded machine and be answered
// as a timeout: that order is held to 12 answers and 2 handlers started.
func TestConcurrencyCountsHandlersTimeoutLeftRunning(t *testing.T) {
	orders := map[string]func() []mcp.Middleware{
		"concurrency outside timeout": func() []mcp.Middleware {
			return []mcp.Middleware{limit.Concurrency(2, limit.WithMaxWait(0), limit.WithHoldCap(0)), limit.Timeout(30 * time.Millisecond)}
		},
		"concurrency inside timeout": func() []mcp.Middleware {
			return []mcp.Middleware{limit.Timeout(30 * time.Millisecond), limit.Concurrency(2, limit.WithMaxWait(0), limit.WithHoldCap(0))}
		},
	}
	for name, layers := range orders {
		t.Run(name, func(t *testing.T) {
			d := newDeaf()
			c := serve(t, d.handle, layers())
			timedOut, refused := 0, 0
			for range 12 {
				r := c.Call(tool, nil).ExpectError(gosdk.ExecutionFailed).NoLeak()
				if r.Envelope == nil || !r.Envelope.Retryable {
					t.Fatalf("not a retryable envelope: %s", r.Raw)
				}
				if r.Envelope.RetryAfterMS > 0 {
					refused++
					r.ExpectMessage("at most 2 at a time")
				} else {
					timedOut++
					r.ExpectMessage("did not finish within")
				}
			}
			t.Logf("%s: %d handlers running after 12 calls, %d timed out, %d refused", name, d.running.Load(), timedOut, refused)
			if p := d.peak.Load(); p > 2 {
				t.Errorf("%d handlers ran at once, want at most 2", p)
			}
			if n := d.started.Load(); n != 2 {
				t.Errorf("%d handlers started, want 2", n)
			}
			exact := name == "concurrency outside timeout"
			if exact && (timedOut != 2 || refused != 10) || timedOut < 2 || timedOut+refused != 12 {
				t.Errorf("%d timed out and %d refused, want 2 and 10", timedOut, refused)
			}
			close(d.release)
			waitForNoLimitGoroutines(t)
			// The slots came back when the handlers returned.
			if text := c.Call(tool, nil).ExpectSuccess().Text(); text != "late" {
				t.Errorf("after the late handlers returned: %q", text)
			}
		})
	}
}

func TestRateRefusesWithRetryAfter(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	counting := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls.Add(1)
		return ok(ctx, req)
	}
	c := serve(t, counting, []mcp.Middleware{limit.Rate(rate.Every(time.Hour), 2)})
	c.Call(tool, nil).ExpectSuccess()
	c.Call(tool, nil).ExpectSuccess()
	r := c.Call(tool, nil).ExpectError(gosdk.ExecutionFailed).
		ExpectMessage("Rate limit reached").ExpectNextStep("(retry_after_ms)").NoLeak()
	if r.Envelope == nil || !r.Envelope.Retryable || r.Envelope.RetryAfterMS < (59*time.Minute).Milliseconds() {
		t.Fatalf("want retryable with retry_after_ms about an hour: %s", r.Raw)
	}
	if !strings.Contains(string(r.Raw), `"retry_after_ms":`) {
		t.Fatalf("retry_after_ms is not on the wire: %s", r.Raw)
	}
	if n := calls.Load(); n != 2 {
		t.Fatalf("the handler ran %d times, want 2: a refused call reached it", n)
	}
}

// TestUnknownToolTakesNoToken: a call of a tool the server does not have
// is answered "unknown tool" (-32602) by go-sdk, however often it comes,
// as mcp-go and mcpguard-proxy answer it, and takes no token: before, the
// second such call was refused with "Rate limit reached ... repeat this
// call unchanged" for a tool that does not exist, and a misspelled name
// spent the budget of the server's real tools.
func TestUnknownToolTakesNoToken(t *testing.T) {
	t.Parallel()
	c := serve(t, ok, []mcp.Middleware{limit.Rate(rate.Every(time.Hour), 1)})
	for range 3 {
		r := c.Call("shop_serch", nil).ExpectProtocolError(jsonrpc.CodeInvalidParams)
		if r.ProtocolError != nil && !strings.Contains(r.ProtocolError.Message, `unknown tool "shop_serch"`) {
			t.Errorf("message = %q", r.ProtocolError.Message)
		}
	}
	c.Call(tool, nil).ExpectSuccess()
	c.Call(tool, nil).ExpectError(gosdk.ExecutionFailed).ExpectMessage("Rate limit reached")
}

// TestPanicInTimeoutsGoroutineIsAnIncident: a handler that panics in the
// goroutine Timeout runs it in ends as an internal_error envelope with an
// incident ID, logged with the handler goroutine's stack; the process
// lives (go-sdk recovers nowhere: a panic that escaped would end it).
func TestPanicInTimeoutsGoroutineIsAnIncident(t *testing.T) {
	t.Parallel()
	log := gosdktest.NewLog(t)
	boom := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("boom: postgres://app:hunter2@10.0.0.5/shop")
	}
	c := serve(t, boom, []mcp.Middleware{limit.Timeout(time.Minute)}, gosdk.WithLogger(log.Logger()))
	r := c.Call(tool, nil).ExpectError(gosdk.InternalError).NoLeak("hunter2", "boom")
	log.ExpectIncident(r, "boom", "handler goroutine")
	c.Call(tool, nil).ExpectError(gosdk.InternalError) // still serving
}

// TestLatePanicIsLoggedWithAnIncident: a handler that panics after its
// deadline, with no caller left to hand the panic to, is logged under an
// incident ID instead of ending the process.
func TestLatePanicIsLoggedWithAnIncident(t *testing.T) {
	log := gosdktest.NewLog(t)
	release := make(chan struct{})
	late := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-release
		panic("late boom")
	}
	c := serve(t, late, []mcp.Middleware{limit.Timeout(10*time.Millisecond, limit.WithLogger(log.Logger()))})
	c.Call(tool, nil).ExpectError(gosdk.ExecutionFailed).ExpectMessage("did not finish within")
	close(release)
	waitForNoLimitGoroutines(t)
	rec := log.Find("msg", "mcpguard: tool handler panicked after its timeout")
	if rec == nil || rec["incident_id"] == "" || !strings.Contains(rec["panic"].(string), "late boom") {
		t.Fatalf("no incident record of the late panic: %v", log.Records())
	}
}

// TestPerToolStateOnlyForRegisteredTools: go-sdk runs middleware before
// it looks the tool up, so invented tool names must not get slots or
// buckets of their own, nor spend a real tool's: the Middleware answers
// them "unknown tool" before any limit (TestUnknownToolTakesNoToken).
func TestPerToolStateOnlyForRegisteredTools(t *testing.T) {
	t.Parallel()
	c := serve(t, ok, []mcp.Middleware{limit.Rate(rate.Every(time.Hour), 1, limit.WithPerTool())})
	c.ListTools() // learns shop_search
	c.Call("invented_1", nil).ExpectProtocolError(-32602)
	c.Call("invented_2", nil).ExpectProtocolError(-32602)
	c.Call("invented_2", nil).ExpectProtocolError(-32602)
	c.Call(tool, nil).ExpectSuccess() // its own bucket, untouched
	c.Call(tool, nil).ExpectError(gosdk.ExecutionFailed).ExpectMessage("Rate limit reached")
}

// TestPerToolSlotsOnlyForRegisteredTools: the same for Concurrency, whose
// per-tool slots are kept for good. Until tools/list has named them, two
// real tools share the slots of names not known yet; once listed, each has
// its own.
func TestPerToolSlotsOnlyForRegisteredTools(t *testing.T) {
	d := newDeaf()
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "0"}, nil)
	s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithLimits(limit.Concurrency(1, limit.WithPerTool(), limit.WithMaxWait(0)))))
	s.AddTool(&mcp.Tool{Name: tool, InputSchema: objectSchema}, d.handle)
	s.AddTool(&mcp.Tool{Name: "shop_report", InputSchema: objectSchema}, ok)
	holder, c := gosdktest.Connect(t, s), gosdktest.Connect(t, s)

	hold := func() chan *gosdktest.Result {
		held := make(chan *gosdktest.Result, 1)
		before := d.running.Load()
		go func() { held <- holder.Call(tool, nil) }()
		for d.running.Load() == before {
			time.Sleep(time.Millisecond)
		}
		return held
	}
	held := hold()
	c.Call("shop_report", nil).ExpectError(gosdk.ExecutionFailed).ExpectMessage("at most 1 at a time")
	d.release <- struct{}{}
	(<-held).ExpectSuccess()

	c.ListTools()
	held = hold()
	c.Call("shop_report", nil).ExpectSuccess()
	close(d.release)
	(<-held).ExpectSuccess()
}

func TestInvalidConfigurationPanics(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]func(){
		"Rate(0, 1)":         func() { limit.Rate(0, 1) },
		"Rate(1, 0)":         func() { limit.Rate(1, 0) },
		"Concurrency(0)":     func() { limit.Concurrency(0) },
		"Timeout(-1)":        func() { limit.Timeout(-1) },
		"WithMaxKeys(0)":     func() { limit.WithMaxKeys(0) },
		"WithMaxWait(-1)":    func() { limit.WithMaxWait(-1) },
		"WithToolTimeout -1": func() { limit.WithToolTimeout(tool, -1) },
		"WithKey(nil)":       func() { limit.WithKey(nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic at construction", name)
				}
			}()
			f()
		}()
	}
}

// waitForNoLimitGoroutines waits until no goroutine runs code of the
// limits' core (a handler Timeout started, or what waits for it), and
// fails the test if some are still there after a generous grace period.
// The tests that use it are not parallel, so the goroutines it finds are
// theirs.
func waitForNoLimitGoroutines(t *testing.T) {
	t.Helper()
	var left int
	var stacks []byte
	for range 1000 {
		left, stacks = limitGoroutines()
		if left == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d goroutines of the limits left behind:\n%s", left, stacks)
}

func limitGoroutines() (int, []byte) {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	var found []byte
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if bytes.Contains(g, []byte("github.com/mcpguard/mcpguard/core/limit.")) {
			n++
			found = append(append(found, g...), "\n\n"...)
		}
	}
	return n, found
}

// TestRefusedCallSkipsMiddlewareInside: with gosdk.WithLimits, the limits
// sit outside the middleware added before gosdk.Middleware, so a refused
// call reaches neither it nor the handler, and other methods pass the
// limits untouched.
func TestRefusedCallSkipsMiddlewareInside(t *testing.T) {
	t.Parallel()
	var inner atomic.Int64
	counting := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				inner.Add(1)
			}
			return next(ctx, method, req)
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "0"}, nil)
	s.AddReceivingMiddleware(counting)
	s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithLimits(limit.Rate(rate.Every(time.Hour), 1))))
	s.AddTool(&mcp.Tool{Name: tool, InputSchema: objectSchema}, ok)
	c := gosdktest.Connect(t, s)
	c.Call(tool, nil).ExpectSuccess()
	c.Call(tool, nil).ExpectError(gosdk.ExecutionFailed).ExpectMessage("Rate limit reached")
	if n := inner.Load(); n != 1 {
		t.Fatalf("the middleware inside saw %d calls, want 1: a refused call reached it", n)
	}
	if tools := c.ListTools(); len(tools) != 1 {
		t.Fatalf("tools/list through the limits: %d tools", len(tools))
	}
}
