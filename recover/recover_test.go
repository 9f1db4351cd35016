package recover_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/internal/wiretest"
	"github.com/mcpguard/mcpguard/middleware"
	mcprecover "github.com/mcpguard/mcpguard/recover"
)

type custom struct{ DSN string }

type evilStringer struct{}

func (evilStringer) String() string { panic("String exploded with sk-live-0123456789abcdefghijkl") }

type evilError struct{}

func (evilError) Error() string { panic("Error exploded") }

const secret = "postgres://app:hunter2@db.internal/shop"

func panicking(fn func()) server.ToolHandlerFunc {
	return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fn()
		return mcp.NewToolResultText("unreachable"), nil
	}
}

func TestEveryPanicValueBecomesAnIncident(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		fn        func()
		wantInLog string
	}{
		"string":      {func() { panic("config " + secret) }, "hunter2"},
		"error":       {func() { panic(fmt.Errorf("wrapped: %w", errors.New(secret))) }, "hunter2"},
		"custom type": {func() { panic(custom{DSN: secret}) }, "hunter2"},
		"pointer":     {func() { panic(&custom{DSN: secret}) }, "hunter2"},
		"int":         {func() { panic(42) }, "42"},
		"nil":         {func() { panic(nil) }, "nil"},
		"nil map write": {func() {
			var m map[string]int
			//lint:ignore SA5000 the nil map write is the panic under test
			m["x"] = 1
		}, "nil map"},
		"index out of range": {func() { s := []int{}; _ = s[len(s)+3] }, "index out of range"},
		"nil dereference":    {func() { var p *custom; _ = p.DSN }, "nil pointer"},
		"type assertion":     {func() { var v any = "x"; _ = v.(int) }, "interface conversion"},
		"String panics":      {func() { panic(evilStringer{}) }, "evilStringer"},
		"Error panics":       {func() { panic(evilError{}) }, "evilError"},
		"error value nil":    {func() { var err error; panic(err) }, "nil"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var logs wiretest.Logs
			s := wiretest.NewServer(mcprecover.Middleware(mcprecover.WithLogger(logs.Logger())))
			s.AddTool(mcp.NewTool("shop_tool"), panicking(tc.fn))
			r := wiretest.Call(t, s, "shop_tool", map[string]any{})
			env := r.Envelope(t)
			assert.Equal(t, envelope.InternalError, env.ErrorType)
			assert.Equal(t, "shop_tool", env.Tool)
			assert.True(t, env.Retryable)
			assert.Regexp(t, `^inc_[0-9a-f]{16}$`, env.IncidentID)
			assert.Empty(t, wiretest.Leaks(r.Raw, "hunter2", "exploded", "nil map", "index out of range", "evil", "custom"))

			rec := logs.Find("incident_id", env.IncidentID)
			require.NotNil(t, rec, "logged under the client's incident ID")
			assert.Contains(t, strings.ToLower(fmt.Sprint(rec["panic"], rec["panic_go_type"])), strings.ToLower(tc.wantInLog))
			assert.Contains(t, rec["stack"], "recover_test.go", "the stack reaches the log")
			assert.Equal(t, "shop_tool", rec["tool"])
		})
	}
}

func TestPanicInAnotherLayerOrCallback(t *testing.T) {
	t.Parallel()
	before := func(server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("layer before next") }
	}
	after := func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := next(ctx, req)
			_ = res.Content[7] // a layer bug that only shows on results
			return res, err
		}
	}
	panickyMapper := envelope.Middleware(envelope.WithLogger(slog.New(slog.DiscardHandler)),
		envelope.WithMapper(func(error) (envelope.Code, bool) { panic("mapper") }))
	for name, mw := range map[string]server.ToolHandlerMiddleware{"before": before, "after": after, "mapper": panickyMapper} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := wiretest.NewServer(mcprecover.Middleware(mcprecover.WithLogger(slog.New(slog.DiscardHandler))), mw)
			s.AddTool(mcp.NewTool("shop_tool"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, errors.New("x")
			})
			r := wiretest.Call(t, s, "shop_tool", nil)
			assert.Equal(t, envelope.InternalError, r.Envelope(t).ErrorType)
		})
	}
}

type panicHandler struct{ slog.Handler }

func (panicHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (panicHandler) Handle(context.Context, slog.Record) error { panic("log backend down") }

func TestPanickingLoggerAndCallbackAreContained(t *testing.T) {
	t.Parallel()
	var called atomic.Int32
	s := wiretest.NewServer(mcprecover.Middleware(
		mcprecover.WithLogger(slog.New(panicHandler{})),
		mcprecover.WithOnPanic(func(_ context.Context, req mcp.CallToolRequest, p mcprecover.Panic) {
			called.Add(1)
			if p.IncidentID == "" || p.Tool != "shop_tool" || len(p.Stack) == 0 || p.Value != "first" {
				t.Errorf("bad Panic %+v", p)
			}
			panic("callback too")
		})))
	s.AddTool(mcp.NewTool("shop_tool"), panicking(func() { panic("first") }))
	r := wiretest.Call(t, s, "shop_tool", nil)
	assert.Equal(t, envelope.InternalError, r.Envelope(t).ErrorType)
	assert.Equal(t, int32(1), called.Load())
}

func TestWithoutStack(t *testing.T) {
	t.Parallel()
	var logs wiretest.Logs
	s := wiretest.NewServer(mcprecover.Middleware(mcprecover.WithLogger(logs.Logger()), mcprecover.WithoutStack()))
	s.AddTool(mcp.NewTool("shop_tool"), panicking(func() { panic("x") }))
	env := wiretest.Call(t, s, "shop_tool", nil).Envelope(t)
	rec := logs.Find("incident_id", env.IncidentID)
	require.NotNil(t, rec)
	assert.NotContains(t, rec, "stack")
}

func TestAloneWithoutAServer(t *testing.T) {
	t.Parallel()
	h := middleware.Wrap(panicking(func() { panic("x") }), mcprecover.Middleware(mcprecover.WithLogger(slog.New(slog.DiscardHandler))))
	res, err := h(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "shop_tool"}})
	require.NoError(t, err, "a panic never becomes a Go error")
	env, ok := envelope.FromResult(res)
	require.True(t, ok)
	assert.Equal(t, envelope.InternalError, env.ErrorType)
}

func TestPassThroughCostsNothing(t *testing.T) {
	want := mcp.NewToolResultText("ok")
	wantErr := errors.New("not mine to handle")
	h := mcprecover.Middleware()(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return want, wantErr })
	got, err := h(context.Background(), mcp.CallToolRequest{})
	assert.Same(t, want, got)
	assert.Same(t, wantErr, err, "errors pass through to the envelope layer outside")
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = h(context.Background(), mcp.CallToolRequest{}) }))
}

func TestConcurrentPanics(t *testing.T) {
	t.Parallel()
	s := wiretest.NewServer(mcprecover.Middleware(mcprecover.WithLogger(slog.New(slog.DiscardHandler))))
	s.AddTool(mcp.NewTool("shop_tool"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.GetInt("i", 0)%2 == 0 {
			panic("even")
		}
		return mcp.NewToolResultText("odd"), nil
	})
	done := make(chan bool, 1000)
	for i := 0; i < 1000; i++ {
		go func(i int) {
			out := s.HandleMessage(context.Background(), wiretest.Message("shop_tool", map[string]any{"i": i}))
			resp, ok := out.(mcp.JSONRPCResponse)
			res, _ := resp.Result.(*mcp.CallToolResult)
			done <- ok && res != nil && res.IsError == (i%2 == 0)
		}(i)
	}
	for i := 0; i < 1000; i++ {
		require.True(t, <-done)
	}
}
