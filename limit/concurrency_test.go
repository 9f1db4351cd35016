package limit_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// gate is a handler that holds every call until released, and says when a
// call has entered.
type gate struct {
	entered chan struct{}
	release chan struct{}
}

func newGate() *gate { return &gate{entered: make(chan struct{}, 16), release: make(chan struct{})} }

func (g *gate) handle(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g.entered <- struct{}{}
	<-g.release
	return mcp.NewToolResultText("ok"), nil
}

// background calls the tool in a goroutine and returns its result later.
func background(srv *middlewaretest.Server, tool string) <-chan *middlewaretest.Result {
	out := make(chan *middlewaretest.Result, 1)
	go func() { out <- srv.CallTool(tool, nil) }()
	return out
}

func TestConcurrencyRefusesBeyondItsSlots(t *testing.T) {
	t.Parallel()
	g := newGate()
	srv := middlewaretest.New(t, tool, g.handle, append(middleware.Default(), limit.Concurrency(1, limit.WithMaxWait(0)))...)
	first := background(srv, "shop_search")
	<-g.entered
	r := srv.Call(nil).ExpectError(envelope.ExecutionFailed).ExpectNextStep("Wait 100 ms").ExpectMessage("at most 1 at a time")
	require.NotNil(t, r.Envelope)
	assert.True(t, r.Envelope.Retryable)
	assert.EqualValues(t, 100, r.Envelope.RetryAfterMS)
	close(g.release)
	(<-first).ExpectSuccess()
	srv.Call(nil).ExpectSuccess() // the slot came back
	<-g.entered
}

func TestConcurrencyLetsACallWaitForASlot(t *testing.T) {
	t.Parallel()
	g := newGate()
	srv := middlewaretest.New(t, tool, g.handle, limit.Concurrency(1, limit.WithMaxWait(time.Hour)))
	first := background(srv, "shop_search")
	<-g.entered
	second := background(srv, "shop_search")
	select {
	case <-g.entered:
		t.Fatal("a second call ran while the only slot was taken")
	case <-time.After(20 * time.Millisecond):
	}
	close(g.release)
	(<-first).ExpectSuccess()
	(<-second).ExpectSuccess()
}

func TestConcurrencyPerTool(t *testing.T) {
	t.Parallel()
	g := newGate()
	srv := middlewaretest.New(t, tool, g.handle, limit.Concurrency(1, limit.WithPerTool(), limit.WithMaxWait(0)))
	srv.MCPServer().AddTool(mcp.NewTool("shop_report"), g.handle)
	var wg sync.WaitGroup
	results := make([]*middlewaretest.Result, 2)
	for i, name := range []string{"shop_search", "shop_report"} {
		wg.Go(func() { results[i] = srv.CallTool(name, nil) })
	}
	<-g.entered
	<-g.entered // both tools run at once: one slot each
	srv.Call(nil).ExpectError(envelope.ExecutionFailed)
	close(g.release)
	wg.Wait()
	results[0].ExpectSuccess()
	results[1].ExpectSuccess()
}

func TestInvalidConcurrencyConfigurationPanics(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() { limit.Concurrency(0) })
	assert.Panics(t, func() { limit.WithMaxWait(-1) })
}

func TestConcurrencyAnswersACallCancelledWhileItWaits(t *testing.T) {
	t.Parallel()
	g := newGate()
	srv := middlewaretest.New(t, tool, g.handle, limit.Concurrency(1, limit.WithMaxWait(time.Hour)))
	first := background(srv, "shop_search")
	<-g.entered
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	raw := send(t, srv.MCPServer(), ctx)
	assert.Contains(t, raw, `"isError":true`)
	assert.Contains(t, raw, `\"error_type\":\"execution_failed\"`)
	assert.NotContains(t, raw, "retry_after_ms", "not refused by the limit: the caller left")
	close(g.release)
	(<-first).ExpectSuccess()
}
