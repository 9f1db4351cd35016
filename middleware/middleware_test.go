package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
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

// tracer records the order layers run in.
type tracer struct {
	mu  sync.Mutex
	log []string
}

func (tr *tracer) layer(name string) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			tr.mu.Lock()
			tr.log = append(tr.log, name+">")
			tr.mu.Unlock()
			res, err := next(ctx, req)
			tr.mu.Lock()
			tr.log = append(tr.log, "<"+name)
			tr.mu.Unlock()
			return res, err
		}
	}
}

func ok(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("ok"), nil
}

// newServer returns a server with the given layers installed with Use and
// no tools yet.
func newServer(layers ...server.ToolHandlerMiddleware) *server.MCPServer {
	s := server.NewMCPServer("middleware_test", "1.0.0", server.WithToolCapabilities(false))
	if len(layers) > 0 {
		s.Use(layers...)
	}
	return s
}

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

func TestChainRunsOutermostFirstLikeUse(t *testing.T) {
	t.Parallel()
	var viaChain, viaUse tracer
	middlewaretest.New(t, mcp.NewTool("t"), ok, middleware.Chain(viaChain.layer("a"), nil, viaChain.layer("b"))).Call(nil).ExpectSuccess()
	middlewaretest.New(t, mcp.NewTool("t"), ok, viaUse.layer("a"), viaUse.layer("b")).Call(nil).ExpectSuccess()

	assert.Equal(t, []string{"a>", "b>", "<b", "<a"}, viaChain.log)
	assert.Equal(t, viaUse.log, viaChain.log)
}

func TestWrapOneTool(t *testing.T) {
	t.Parallel()
	logs := middlewaretest.NewLog(t)
	s := newServer()
	boom := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("boom") }
	s.AddTool(mcp.NewTool("shop_guarded"), middleware.Wrap(boom, mcprecover.Middleware(mcprecover.WithLogger(logs.Logger()))))
	s.AddTool(mcp.NewTool("shop_plain"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("plain mcp-go")
	})
	srv := middlewaretest.FromServer(t, s)
	r := srv.CallTool("shop_guarded", nil)
	expect(t, r, envelope.InternalError)
	logs.ExpectIncident(r, "boom")
	// A tool without layers keeps mcp-go's behaviour.
	srv.CallTool("shop_plain", nil).ExpectProtocolError(mcp.INTERNAL_ERROR)
}

func TestSelection(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		mw      func(server.ToolHandlerMiddleware) server.ToolHandlerMiddleware
		wrapped map[string]bool
	}{
		{"ForTools", func(m server.ToolHandlerMiddleware) server.ToolHandlerMiddleware {
			return middleware.ForTools(m, "shop_a", "shop_c")
		}, map[string]bool{"shop_a": true, "shop_b": false, "shop_c": true}},
		{"ExceptTools", func(m server.ToolHandlerMiddleware) server.ToolHandlerMiddleware {
			return middleware.ExceptTools(m, "shop_a")
		}, map[string]bool{"shop_a": false, "shop_b": true, "shop_c": true}},
		{"When", func(m server.ToolHandlerMiddleware) server.ToolHandlerMiddleware {
			return middleware.When(m, func(_ context.Context, req mcp.CallToolRequest) bool { return strings.HasSuffix(req.Params.Name, "_b") })
		}, map[string]bool{"shop_a": false, "shop_b": true, "shop_c": false}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(tc.mw(envelope.Middleware()))
			for name := range tc.wrapped {
				s.AddTool(mcp.NewTool(name), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return nil, envelope.ErrNotFound
				})
			}
			srv := middlewaretest.FromServer(t, s)
			for name, wrapped := range tc.wrapped {
				r := srv.CallTool(name, nil)
				if wrapped {
					r.ExpectError(envelope.NotFound)
				} else {
					// Not selected, so mcp-go answers as usual.
					r.ExpectProtocolError(mcp.INTERNAL_ERROR)
				}
			}
		})
	}
	assert.Panics(t, func() { middleware.ForTools(envelope.Middleware()) }, "an empty selection is a configuration error")
	assert.Panics(t, func() { middleware.When(nil, nil) })
}

func TestDefaultOnTheWire(t *testing.T) {
	t.Parallel()
	logs := middlewaretest.NewLog(t)
	s := newServer(middleware.Default(
		middleware.WithLogger(logs.Logger()),
		middleware.WithEnvelopeOptions(envelope.WithMapping(errNoRows, envelope.NotFound)),
	)...)
	add := func(name string, h server.ToolHandlerFunc) { s.AddTool(mcp.NewTool(name), h) }
	add("shop_ok", ok)
	add("shop_sentinel", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("product P-1: %w", envelope.ErrNotFound)
	})
	add("shop_mapped", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("scan: %w", errNoRows)
	})
	add("shop_dsn", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("connect postgres://shop:hunter2@db.internal/shop: timeout")
	})
	add("shop_panic", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var m map[string]int
		//lint:ignore SA5000 the nil map write is the panic under test
		m["x"]++
		return nil, nil
	})
	add("shop_legacy", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("open /srv/shop/data.db: token=abc123 rejected"), nil
	})
	srv := middlewaretest.FromServer(t, s)

	assert.Equal(t, "ok", srv.CallTool("shop_ok", nil).ExpectSuccess().Text())
	srv.CallTool("shop_sentinel", nil).ExpectError(envelope.NotFound)
	srv.CallTool("shop_mapped", nil).ExpectError(envelope.NotFound)
	for name, detail := range map[string]string{"shop_dsn": "hunter2", "shop_panic": "nil map"} {
		r := srv.CallTool(name, nil)
		expect(t, r, envelope.InternalError)
		r.NoLeak("hunter2", "db.internal", "nil map")
		logs.ExpectIncident(r, detail)
	}
	r := srv.CallTool("shop_legacy", nil)
	env := expect(t, r, envelope.ExecutionFailed)
	r.NoLeak("abc123", "/srv/shop")
	assert.Contains(t, env.Message, "rejected")

	// One Logging record per call, with outcome and error_type.
	var calls []map[string]any
	for _, rec := range logs.Records() {
		if rec["msg"] == "mcpguard: tool call" {
			calls = append(calls, rec)
		}
	}
	require.Len(t, calls, 6)
	byTool := map[string]map[string]any{}
	for _, c := range calls {
		byTool[c["tool"].(string)] = c
	}
	assert.Equal(t, "success", byTool["shop_ok"]["outcome"])
	assert.Equal(t, "INFO", byTool["shop_ok"]["level"])
	assert.Equal(t, "tool_error", byTool["shop_sentinel"]["outcome"])
	assert.Equal(t, "not_found", byTool["shop_sentinel"]["error_type"])
	assert.Equal(t, "WARN", byTool["shop_sentinel"]["level"])
	assert.Equal(t, "internal_error", byTool["shop_panic"]["error_type"])
	assert.Equal(t, "ERROR", byTool["shop_panic"]["level"])
	assert.NotEmpty(t, byTool["shop_panic"]["incident_id"])
	assert.Contains(t, byTool["shop_ok"], "duration")
	assert.NotContains(t, byTool["shop_ok"], "arguments", "arguments are not logged unless asked")
}

var errNoRows = errors.New("sql: no rows in result set")

func TestLoggingArgumentsAreMasked(t *testing.T) {
	t.Parallel()
	logs := middlewaretest.NewLog(t)
	srv := middlewaretest.New(t, mcp.NewTool("shop_login"), ok, middleware.Logging(logs.Logger(), middleware.WithArguments()))
	srv.Call(map[string]any{"user": "bob", "api_key": "live-123", "nested": map[string]any{"password": "hunter2"}, "note": "Bearer abcdefghijklmnopqrstu"}).ExpectSuccess()
	recs := logs.Records()
	require.Len(t, recs, 1)
	args := recs[0]["arguments"].(string)
	assert.Contains(t, args, `"user":"bob"`)
	for _, s := range []string{"live-123", "hunter2", "abcdefghijklmnopqrstu"} {
		assert.NotContains(t, args, s)
	}
}

type panicHandler struct{ slog.Handler }

func (panicHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (panicHandler) Handle(context.Context, slog.Record) error { panic("log backend down") }

func TestPanickingLogHandlerNeverFailsTheCall(t *testing.T) {
	t.Parallel()
	s := newServer(middleware.Default(middleware.WithLogger(slog.New(panicHandler{}), middleware.WithArguments()))...)
	s.AddTool(mcp.NewTool("shop_ok"), ok)
	s.AddTool(mcp.NewTool("shop_panic"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("x") })
	s.AddTool(mcp.NewTool("shop_raw"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, errors.New("x") })
	srv := middlewaretest.FromServer(t, s)
	assert.Equal(t, "ok", srv.CallTool("shop_ok", nil).ExpectSuccess().Text())
	srv.CallTool("shop_panic", nil).ExpectError(envelope.InternalError)
	srv.CallTool("shop_raw", nil).ExpectError(envelope.InternalError)
}

func TestLoggingWithoutEnvelopeLogsProtocolErrors(t *testing.T) {
	t.Parallel()
	logs := middlewaretest.NewLog(t)
	raw := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, errors.New("raw") }
	srv := middlewaretest.New(t, mcp.NewTool("shop_raw"), raw, middleware.Logging(logs.Logger()))
	srv.Call(nil).ExpectProtocolError(mcp.INTERNAL_ERROR) // Logging never changes the answer
	recs := logs.Records()
	require.Len(t, recs, 1)
	assert.Equal(t, "protocol_error", recs[0]["outcome"])
	assert.Panics(t, func() { middleware.Logging(nil) })
}

func TestDefaultPassThroughAllocatesNothing(t *testing.T) {
	want := mcp.NewToolResultText("ok")
	h := middleware.Wrap(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return want, nil }, middleware.Default()...)
	got, err := h(context.Background(), mcp.CallToolRequest{})
	require.NoError(t, err)
	assert.Same(t, want, got)
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = h(context.Background(), mcp.CallToolRequest{}) }))

	sel := middleware.Wrap(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return want, nil }, middleware.ForTools(envelope.Middleware(), "other"))
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "mine"}}
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = sel(context.Background(), req) }), "a skipped layer costs a lookup")
}

func TestManyConcurrentCallsThroughDefault(t *testing.T) {
	t.Parallel()
	h := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		switch req.GetInt("i", 0) % 4 {
		case 0:
			return mcp.NewToolResultText("ok"), nil
		case 1:
			return nil, envelope.ErrNotFound
		case 2:
			panic("p")
		default:
			return nil, errors.New("password=hunter2")
		}
	}
	srv := middlewaretest.New(t, mcp.NewTool("shop_mixed"), h, middleware.Default(middleware.WithLogger(slog.New(slog.DiscardHandler)))...)
	const n = 2000
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := srv.Call(map[string]any{"i": i}).NoLeak("hunter2")
			switch i % 4 {
			case 0:
				r.ExpectSuccess()
			case 1:
				r.ExpectError(envelope.NotFound)
			default:
				r.ExpectError(envelope.InternalError)
			}
		}()
	}
	wg.Wait()
}

// Issue 9: Logging(WithArguments()) masked only exact key names with string
// values. Every secret-named key is masked now, whatever its value type.
func TestLoggingMasksEverySecretShape(t *testing.T) {
	t.Parallel()
	keys := []string{"db_password", "newPassword", "x-api-key", "authorization", "client-secret", "AWS_SECRET_ACCESS_KEY",
		"GITHUB_TOKEN", "apiKey", "session_id", "refresh_token", "passwd", "credentials"}
	values := map[string]func(int) any{
		"string": func(i int) any { return fmt.Sprintf("sv%03dx", i) },
		"number": func(i int) any { return 700000 + i },
		"array":  func(i int) any { return []any{fmt.Sprintf("av%03dx", i)} },
	}
	var buf strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}), nil))
	srv := middlewaretest.New(t, mcp.NewTool("t"), ok, middleware.Logging(logger, middleware.WithArguments()))
	shapes, leaked := 0, 0
	for i, k := range keys {
		for kind, v := range values {
			shapes++
			val := v(i)
			buf.Reset()
			srv.Call(map[string]any{k: val, "user": "bob"})
			secret := strings.Trim(fmt.Sprint(val), "[]")
			mu.Lock()
			line := buf.String()
			mu.Unlock()
			if strings.Contains(line, secret) || !strings.Contains(line, `\"user\":\"bob\"`) {
				leaked++
				t.Errorf("%s (%s) logged as %s", k, kind, line)
			}
		}
	}
	t.Logf("%d shapes, %d leaked", shapes, leaked)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
