package recover_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
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

var shopTool = mcp.NewTool("shop_tool")

// expect checks the whole wire contract with the public harness and
// returns the envelope, stopping the test when the contract is broken.
func expect(t *testing.T, r *middlewaretest.Result, code envelope.Code) *envelope.Envelope {
	t.Helper()
	r.ExpectError(code)
	if r.Envelope == nil || t.Failed() {
		t.FailNow()
	}
	return r.Envelope
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
			checkIncident(t, panicking(tc.fn), tc.wantInLog)
		})
	}
}

// checkIncident calls h behind recover alone and checks what the client
// gets (an internal_error envelope with a fresh incident ID, nothing of the
// panic) and what the log gets under that ID (the value, its type, the
// stack).
func checkIncident(t *testing.T, h server.ToolHandlerFunc, wantInLog string) {
	t.Helper()
	logs := middlewaretest.NewLog(t)
	srv := middlewaretest.New(t, shopTool, h, mcprecover.Middleware(mcprecover.WithLogger(logs.Logger())))
	r := srv.Call(map[string]any{})
	env := expect(t, r, envelope.InternalError)
	assert.Equal(t, "shop_tool", env.Tool)
	assert.True(t, env.Retryable)
	assert.Regexp(t, `^inc_[0-9a-f]{16}$`, env.IncidentID)
	r.NoLeak("hunter2", "exploded", "nil map", "index out of range", "evil", "custom")

	rec := logs.ExpectIncident(r)
	require.NotNil(t, rec, "logged under the client's incident ID")
	assert.Contains(t, strings.ToLower(fmt.Sprint(rec["panic"], rec["panic_go_type"])), strings.ToLower(wantInLog))
	assert.Contains(t, rec["stack"], "recover_test.go", "the stack reaches the log")
	assert.Equal(t, "shop_tool", rec["tool"])
}

// panicnilChild marks the re-executed test binary that runs with
// GODEBUG=panicnil=1.
const panicnilChild = "MCPGUARD_PANICNIL_CHILD"

// Under GODEBUG=panicnil=1 (what a module whose go.mod says go 1.20 or
// older gets), panic(nil) makes recover() return nil, so a layer that takes
// a nil recover() for "no panic" lets the call end with no result at all.
// The setting is fixed when a binary starts, so the test re-executes its
// own binary with it; CI runs it as part of the package's tests.
func TestPanicNilUnderGODEBUGPanicnil(t *testing.T) {
	if os.Getenv(panicnilChild) == "" {
		t.Parallel()
		cmd := exec.Command(os.Args[0], "-test.run=^TestPanicNilUnderGODEBUGPanicnil$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "GODEBUG=panicnil=1", panicnilChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("under GODEBUG=panicnil=1: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), "--- PASS: TestPanicNilUnderGODEBUGPanicnil") {
			t.Fatalf("the panicnil=1 case did not run:\n%s", out)
		}
		return
	}
	func() {
		defer func() {
			if v := recover(); v != nil {
				t.Fatalf("GODEBUG=panicnil=1 is not in effect: recover() returned %T", v)
			}
		}()
		panic(nil)
	}()
	checkIncident(t, panicking(func() { panic(nil) }), "nil")
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
	panickyMapper := func(logger *slog.Logger) server.ToolHandlerMiddleware {
		return envelope.Middleware(envelope.WithLogger(logger),
			envelope.WithMapper(func(error) (envelope.Code, bool) { panic("mapper") }))
	}
	layers := map[string]func(*slog.Logger) server.ToolHandlerMiddleware{
		"before": func(*slog.Logger) server.ToolHandlerMiddleware { return before },
		"after":  func(*slog.Logger) server.ToolHandlerMiddleware { return after },
		"mapper": panickyMapper,
	}
	for name, layer := range layers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			logs := middlewaretest.NewLog(t)
			srv := middlewaretest.New(t, shopTool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, errors.New("x")
			}, mcprecover.Middleware(mcprecover.WithLogger(logs.Logger())), layer(logs.Logger()))
			r := srv.Call(nil)
			expect(t, r, envelope.InternalError)
			logs.ExpectIncident(r)
		})
	}
}

type panicHandler struct{ slog.Handler }

func (panicHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (panicHandler) Handle(context.Context, slog.Record) error { panic("log backend down") }

func TestPanickingLoggerAndCallbackAreContained(t *testing.T) {
	t.Parallel()
	var called atomic.Int32
	srv := middlewaretest.New(t, shopTool, panicking(func() { panic("first") }), mcprecover.Middleware(
		mcprecover.WithLogger(slog.New(panicHandler{})),
		mcprecover.WithOnPanic(func(_ context.Context, req mcp.CallToolRequest, p mcprecover.Panic) {
			called.Add(1)
			if p.IncidentID == "" || p.Tool != "shop_tool" || len(p.Stack) == 0 || p.Value != "first" {
				t.Errorf("bad Panic %+v", p)
			}
			panic("callback too")
		})))
	expect(t, srv.Call(nil), envelope.InternalError)
	assert.Equal(t, int32(1), called.Load())
}

func TestWithoutStack(t *testing.T) {
	t.Parallel()
	logs := middlewaretest.NewLog(t)
	srv := middlewaretest.New(t, shopTool, panicking(func() { panic("x") }),
		mcprecover.Middleware(mcprecover.WithLogger(logs.Logger()), mcprecover.WithoutStack()))
	r := srv.Call(nil)
	expect(t, r, envelope.InternalError)
	rec := logs.ExpectIncident(r, "x")
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
	h := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.GetInt("i", 0)%2 == 0 {
			panic("even")
		}
		return mcp.NewToolResultText("odd"), nil
	}
	srv := middlewaretest.New(t, shopTool, h, mcprecover.Middleware(mcprecover.WithLogger(slog.New(slog.DiscardHandler))))
	var wg sync.WaitGroup
	for i := range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := srv.Call(map[string]any{"i": i})
			if i%2 == 0 {
				r.ExpectError(envelope.InternalError).NoLeak("even")
			} else {
				r.ExpectSuccess()
			}
		}()
	}
	wg.Wait()
}

// The chain hands recover its Renderer, so a panic carries the configured
// message and steps; a nil Renderer keeps the default one.
func TestWithRenderer(t *testing.T) {
	t.Parallel()
	const msg, step = "Something broke on our side.", "Tell the on-call engineer."
	r := envelope.NewRenderer(envelope.WithInternalMessage(msg), envelope.WithDefaultNextSteps(envelope.InternalError, step))
	logs := middlewaretest.NewLog(t)
	h := panicking(func() { panic("x") })
	env := expect(t, middlewaretest.New(t, shopTool, h, mcprecover.Middleware(mcprecover.WithLogger(logs.Logger()), mcprecover.WithRenderer(r))).Call(nil), envelope.InternalError)
	assert.True(t, strings.HasPrefix(env.Message, msg), env.Message)
	assert.Equal(t, []string{step}, env.NextSteps)

	env = expect(t, middlewaretest.New(t, shopTool, h, mcprecover.Middleware(mcprecover.WithLogger(logs.Logger()), mcprecover.WithRenderer(nil), nil)).Call(nil), envelope.InternalError)
	assert.True(t, strings.HasPrefix(env.Message, "The tool failed with an internal error."), env.Message)
	assert.Equal(t, envelope.NewRenderer().DefaultNextSteps(envelope.InternalError, env.IncidentID), env.NextSteps)
}

// WithoutStack keeps the stack out of the log, not out of the callback:
// an error tracker still gets it.
func TestOnPanicGetsTheStackWithoutStack(t *testing.T) {
	t.Parallel()
	var stack atomic.Value
	logs := middlewaretest.NewLog(t)
	srv := middlewaretest.New(t, shopTool, panicking(func() { panic("x") }), mcprecover.Middleware(
		mcprecover.WithLogger(logs.Logger()), mcprecover.WithoutStack(),
		mcprecover.WithOnPanic(func(_ context.Context, _ mcp.CallToolRequest, p mcprecover.Panic) { stack.Store(string(p.Stack)) })))
	r := srv.Call(nil)
	expect(t, r, envelope.InternalError)
	assert.Contains(t, stack.Load(), "recover_test.go")
	assert.NotContains(t, logs.ExpectIncident(r), "stack")
}
