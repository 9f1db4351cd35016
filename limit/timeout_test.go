package limit_test

import (
	"bytes"
	"context"
	"log/slog"
	"runtime"
	"strings"
	"sync"
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
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// stuck ignores its context and blocks until the test ends: only the
// layer can release the caller.
func stuck(t *testing.T) func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-release
		return mcp.NewToolResultText("too late"), nil
	}
}

func TestTimeoutReleasesTheCallerOfAHandlerThatIgnoresItsContext(t *testing.T) {
	t.Parallel()
	for name, withDefault := range map[string]bool{"alone": false, "inside Default": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			chain := []server.ToolHandlerMiddleware{limit.Timeout(20 * time.Millisecond)}
			if withDefault {
				chain = append(middleware.Default(), chain...)
			}
			srv := middlewaretest.New(t, tool, stuck(t), chain...)
			r := srv.Call(nil).ExpectError(envelope.ExecutionFailed).ExpectNextStep("smaller page").NoLeak()
			require.NotNil(t, r.Envelope)
			assert.True(t, r.Envelope.Retryable)
			assert.Contains(t, r.Envelope.Message, "did not finish within 20ms")
			assert.Len(t, r.Envelope.NextSteps, 1, "the timeout step replaces the generic one")
		})
	}
}

func TestTimeoutPutsTheDeadlineInTheHandlersContext(t *testing.T) {
	t.Parallel()
	sawDeadline := make(chan bool, 1)
	h := func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_, ok := ctx.Deadline()
		sawDeadline <- ok
		<-ctx.Done()
		return nil, ctx.Err()
	}
	srv := middlewaretest.New(t, tool, h, limit.Timeout(10*time.Millisecond))
	srv.Call(nil).ExpectError(envelope.ExecutionFailed).ExpectNextStep("narrow the query")
	assert.True(t, <-sawDeadline)
}

func TestTimeoutPerTool(t *testing.T) {
	t.Parallel()
	deadline := func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, ok := ctx.Deadline(); ok {
			return mcp.NewToolResultText("deadline"), nil
		}
		return mcp.NewToolResultText("none"), nil
	}
	layer := limit.Timeout(0, limit.WithToolTimeout("shop_report", time.Hour))
	srv := middlewaretest.New(t, tool, deadline, layer)
	srv.MCPServer().AddTool(mcp.NewTool("shop_report"), deadline)
	assert.Equal(t, "none", srv.Call(nil).ExpectSuccess().Text(), "zero default: untimed")
	assert.Equal(t, "deadline", srv.CallTool("shop_report", nil).ExpectSuccess().Text())

	exempt := middlewaretest.New(t, tool, deadline, limit.Timeout(time.Hour, limit.WithToolTimeout("shop_search", 0)))
	assert.Equal(t, "none", exempt.Call(nil).ExpectSuccess().Text())
}

func TestTimeoutKeepsResultsAndErrorsThatComeInTime(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := middlewaretest.New(t, tool, counting(&n), append(middleware.Default(), limit.Timeout(time.Hour))...)
	assert.Equal(t, "ok", srv.Call(nil).ExpectSuccess().Text())

	failing := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, envelope.ErrNotFound
	}
	srv = middlewaretest.New(t, tool, failing, append(middleware.Default(), limit.Timeout(time.Hour))...)
	srv.Call(nil).ExpectError(envelope.NotFound)
}

func TestTimeoutHandsAPanicToTheRecoverLayer(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	boom := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("dial postgres://app:hunter2@db/shop failed")
	}
	chain := append(middleware.Default(middleware.WithLogger(logger)), limit.Timeout(time.Hour))
	srv := middlewaretest.New(t, tool, boom, chain...)
	r := srv.Call(nil).ExpectError(envelope.InternalError).NoLeak("hunter2", "postgres://")
	require.NotNil(t, r.Envelope)
	assert.Contains(t, logs.String(), r.Envelope.IncidentID)
	assert.Contains(t, logs.String(), "hunter2", "the value goes to the server log")
	assert.Contains(t, logs.String(), "handler goroutine", "with the handler's own stack")

	goexit := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runtime.Goexit()
		return nil, nil
	}
	middlewaretest.New(t, tool, goexit, append(middleware.Default(), limit.Timeout(time.Hour))...).
		Call(nil).ExpectError(envelope.InternalError)
}

func TestTimeoutLogsAPanicThatComesAfterTheDeadline(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	logged := make(chan struct{})
	logger := slog.New(notifyHandler{slog.NewJSONHandler(&logs, nil), logged})
	late := func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		time.Sleep(5 * time.Millisecond) // after the answer went out
		panic("late")
	}
	srv := middlewaretest.New(t, tool, late, limit.Timeout(5*time.Millisecond, limit.WithLogger(logger)))
	srv.Call(nil).ExpectError(envelope.ExecutionFailed)
	select {
	case <-logged:
	case <-time.After(time.Minute):
		t.Fatal("the late panic was not logged")
	}
	assert.Contains(t, logs.String(), "panicked after its timeout")
	assert.Contains(t, logs.String(), "inc_")
}

func TestTimeoutAnswersACancelledCall(t *testing.T) {
	t.Parallel()
	s := middlewaretest.New(t, tool, stuck(t), limit.Timeout(time.Hour)).MCPServer()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	raw := send(t, s, ctx)
	assert.Contains(t, raw, `\"error_type\":\"execution_failed\"`)
	assert.Contains(t, raw, `"isError":true`)
}

func TestInvalidTimeoutConfigurationPanics(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() { limit.Timeout(-time.Second) })
	assert.Panics(t, func() { limit.WithToolTimeout("x", -1) })
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type notifyHandler struct {
	slog.Handler
	done chan struct{}
}

func (h notifyHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if strings.Contains(r.Message, "after its timeout") {
		close(h.done)
	}
	return err
}
