package hints_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/recover"
)

// ErrSessionExpired is a user sentinel: the shop wraps it as an
// authentication failure.
var ErrSessionExpired = errors.New("session expired")

// errNoRows is a user sentinel that carries no code: only the envelope
// layer's mapping makes it not_found.
var errNoRows = errors.New("no rows in result set")

const (
	stepAuth   = "Call shop_authenticate with your API key, then retry."
	stepKey    = "Ask the user to check the API key configured for the shop."
	stepSearch = "Call shop_search to find the order's ID."
	stepStatus = "Call shop_status to see whether the shop is up."
	stepOwner  = "Only the order's owner may cancel it: call shop_whoami to see who is signed in."
)

func shopRules() []hints.Rule {
	return []hints.Rule{
		hints.For("shop_order",
			hints.OnErrorIs(ErrSessionExpired, hints.Call("shop_authenticate", "with your API key, then retry")),
			hints.OnError(envelope.AuthenticationFailed, hints.Text(stepKey)),
			hints.OnError(envelope.NotFound, hints.Call("shop_search", "to find the order's ID")),
			hints.OnError(envelope.ExecutionFailed, hints.Call("shop_status", "to see whether the shop is up")),
		),
		hints.For("shop_cancel",
			hints.OnError(envelope.AccessDenied, hints.Text(stepOwner)),
			hints.ReplaceDefaults(),
		),
	}
}

// shopOrder fails in the way its "mode" argument says.
func shopOrder(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	switch req.GetString("mode", "") {
	case "expired":
		return nil, fmt.Errorf("checking token: %w", envelope.Wrap(envelope.AuthenticationFailed, ErrSessionExpired))
	case "badkey":
		return nil, envelope.New(envelope.AuthenticationFailed, "invalid API key")
	case "missing":
		return nil, fmt.Errorf("order %s: %w", req.GetString("id", ""), errNoRows)
	case "notfound":
		return nil, envelope.New(envelope.NotFound, "no such order")
	case "own":
		return nil, envelope.AddNextSteps(envelope.New(envelope.NotFound, "no such order"), "Order IDs start with ord_.")
	case "result":
		return mcp.NewToolResultError("upstream exploded"), nil
	case "resultjson":
		return mcp.NewToolResultError(`{"error":"NOT_FOUND","message":"no such order"}`), nil
	case "internal":
		return nil, errors.New("disk on fire")
	case "invalid":
		return nil, envelope.New(envelope.ValidationError, "id is required")
	}
	return mcp.NewToolResultText("order ord_1: shipped"), nil
}

func shopCancel(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	switch req.GetString("mode", "") {
	case "denied":
		return nil, envelope.New(envelope.AccessDenied, "not your order")
	case "denied-result":
		return mcp.NewToolResultError(`{"error":"forbidden","message":"not your order"}`), nil
	case "invalid":
		return nil, envelope.New(envelope.ValidationError, "id is required")
	}
	return mcp.NewToolResultText("cancelled"), nil
}

func okHandler(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("ok"), nil
}

// order is where the hints layer goes relative to middleware.Default().
type order struct {
	name  string
	apply func(s *server.MCPServer, h server.ToolHandlerMiddleware, def []server.ToolHandlerMiddleware)
}

var orders = []order{
	// The natural code: hints added after Default, so inside it.
	{"hints inside Default", func(s *server.MCPServer, h server.ToolHandlerMiddleware, def []server.ToolHandlerMiddleware) {
		s.Use(def...)
		s.Use(h)
	}},
	{"hints outside Default", func(s *server.MCPServer, h server.ToolHandlerMiddleware, def []server.ToolHandlerMiddleware) {
		s.Use(h)
		s.Use(def...)
	}},
}

var quiet = slog.New(slog.DiscardHandler)

func defaultChain() []server.ToolHandlerMiddleware {
	return middleware.Default(
		middleware.WithEnvelopeOptions(envelope.WithMapping(errNoRows, envelope.NotFound), envelope.WithLogger(quiet)),
		middleware.WithRecoverOptions(recover.WithLogger(quiet)),
	)
}

func newShop(tb testing.TB, o order, h server.ToolHandlerMiddleware, opts ...server.ServerOption) *middlewaretest.Server {
	tb.Helper()
	s := server.NewMCPServer("shop", "1.0.0", append([]server.ServerOption{server.WithToolCapabilities(false)}, opts...)...)
	o.apply(s, h, defaultChain())
	s.AddTool(mcp.NewTool("shop_order", mcp.WithString("id"), mcp.WithString("mode")), shopOrder)
	s.AddTool(mcp.NewTool("shop_cancel", mcp.WithString("id"), mcp.WithString("mode")), shopCancel)
	for _, name := range []string{"shop_authenticate", "shop_search", "shop_status", "shop_whoami", "shop_plain"} {
		s.AddTool(mcp.NewTool(name), okHandler)
	}
	return middlewaretest.FromServer(tb, s)
}

func call(srv *middlewaretest.Server, tool, mode string) *middlewaretest.Result {
	return srv.CallTool(tool, map[string]any{"id": "ord_42", "mode": mode})
}

func defaults(c envelope.Code) []string { return envelope.DefaultNextSteps(c) }

func TestErrorHintsBothOrders(t *testing.T) {
	t.Parallel()
	cases := []struct {
		tool, mode string
		code       envelope.Code
		steps      []string
	}{
		// The sentinel is more specific than the code: its hint alone.
		{"shop_order", "expired", envelope.AuthenticationFailed, append([]string{stepAuth}, defaults(envelope.AuthenticationFailed)...)},
		// Other authentication failures get the code's hint.
		{"shop_order", "badkey", envelope.AuthenticationFailed, append([]string{stepKey}, defaults(envelope.AuthenticationFailed)...)},
		// A bare error that only the envelope layer's mapping makes not_found.
		{"shop_order", "missing", envelope.NotFound, append([]string{stepSearch}, defaults(envelope.NotFound)...)},
		{"shop_order", "notfound", envelope.NotFound, append([]string{stepSearch}, defaults(envelope.NotFound)...)},
		// The handler's own steps come after the tool's hints, before the defaults.
		{"shop_order", "own", envelope.NotFound, append([]string{stepSearch, "Order IDs start with ord_."}, defaults(envelope.NotFound)...)},
		// Error results the handler built itself.
		{"shop_order", "result", envelope.ExecutionFailed, append([]string{stepStatus}, defaults(envelope.ExecutionFailed)...)},
		{"shop_order", "resultjson", envelope.NotFound, append([]string{stepSearch}, defaults(envelope.NotFound)...)},
		// No hint for the code: the defaults alone.
		{"shop_order", "invalid", envelope.ValidationError, defaults(envelope.ValidationError)},
		// ReplaceDefaults drops the defaults where a hint applies...
		{"shop_cancel", "denied", envelope.AccessDenied, []string{stepOwner}},
		{"shop_cancel", "denied-result", envelope.AccessDenied, []string{stepOwner}},
		// ...and only there.
		{"shop_cancel", "invalid", envelope.ValidationError, defaults(envelope.ValidationError)},
	}
	// The same hints as a stage of core/chain: a layer of its own
	// (envelope.Gate of Registry.Stage), on either side of Default, and
	// inside Default's one layer (middleware.WithHints).
	stage := envelope.Gate(hints.New(shopRules()).Stage().Gate)
	withHints := order{"Default WithHints", func(s *server.MCPServer, _ server.ToolHandlerMiddleware, _ []server.ToolHandlerMiddleware) {
		s.Use(middleware.Default(middleware.WithHints(shopRules()...),
			middleware.WithEnvelopeOptions(envelope.WithMapping(errNoRows, envelope.NotFound), envelope.WithLogger(quiet)),
			middleware.WithRecoverOptions(recover.WithLogger(quiet)))...)
	}}
	servers := map[string]*middlewaretest.Server{withHints.name: newShop(t, withHints, nil)}
	for _, o := range orders {
		servers[o.name] = newShop(t, o, hints.Middleware(shopRules()...))
		servers[o.name+" as a stage"] = newShop(t, o, stage)
	}
	for name, srv := range servers {
		for _, tc := range cases {
			t.Run(name+"/"+tc.tool+"/"+tc.mode, func(t *testing.T) {
				r := call(srv, tc.tool, tc.mode).ExpectError(tc.code)
				require.NotNil(t, r.Envelope)
				assert.Equal(t, tc.steps, r.Envelope.NextSteps)
				if r.CallResult.StructuredContent != nil {
					var sc envelope.Envelope
					require.NoError(t, json.Unmarshal(r.StructuredContent(), &sc))
					assert.Equal(t, tc.steps, sc.NextSteps, "structuredContent agrees with the text")
				}
			})
		}
	}
}

func TestInternalErrorKeepsIncidentAndHints(t *testing.T) {
	t.Parallel()
	rules := []hints.Rule{hints.For("shop_order",
		hints.OnError(envelope.InternalError, hints.Call("shop_status", "to see whether the shop is up")),
		hints.ReplaceDefaults(),
	)}
	for _, o := range orders {
		t.Run(o.name, func(t *testing.T) {
			srv := newShop(t, o, hints.Middleware(rules...))
			r := call(srv, "shop_order", "internal").ExpectError(envelope.InternalError).NoLeak("disk on fire")
			require.NotNil(t, r.Envelope)
			assert.NotEmpty(t, r.Envelope.IncidentID)
			assert.Equal(t, []string{stepStatus}, r.Envelope.NextSteps)
		})
	}
}

func TestDedupeWithDefaults(t *testing.T) {
	t.Parallel()
	def := defaults(envelope.NotFound)[0]
	rules := []hints.Rule{hints.For("shop_order",
		hints.OnError(envelope.NotFound, hints.Call("shop_search", "to find the order's ID"), hints.Text("  "+def+"  ")),
		hints.OnError(envelope.NotFound, hints.Call("shop_search", "to find the order's ID")),
	)}
	for _, o := range orders {
		t.Run(o.name, func(t *testing.T) {
			srv := newShop(t, o, hints.Middleware(rules...))
			for _, mode := range []string{"notfound", "resultjson"} {
				r := call(srv, "shop_order", mode).ExpectError(envelope.NotFound)
				assert.Equal(t, []string{stepSearch, def}, r.Envelope.NextSteps, mode)
			}
		})
	}
}

func TestDynamicErrorHints(t *testing.T) {
	t.Parallel()
	type seen struct {
		code envelope.Code
		err  error
		ctx  any
	}
	var mu sync.Mutex
	var got []seen
	type ctxKey struct{}
	rules := []hints.Rule{hints.For("shop_order",
		hints.OnErrorFunc(func(ctx context.Context, req mcp.CallToolRequest, f hints.Failure) []hints.Step {
			mu.Lock()
			got = append(got, seen{f.Code, f.Err, ctx.Value(ctxKey{})})
			mu.Unlock()
			if f.Code != envelope.NotFound {
				return nil
			}
			return []hints.Step{hints.Call("shop_search", "with query=%q to find the order", req.GetString("id", ""))}
		}),
	)}
	// A layer further out puts a value in the context: the hint function
	// must get the request's context.
	stamp := func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return next(context.WithValue(ctx, ctxKey{}, "request-ctx"), req)
		}
	}
	for _, o := range orders {
		t.Run(o.name, func(t *testing.T) {
			mu.Lock()
			got = nil
			mu.Unlock()
			srv := newShop(t, o, middleware.Chain(stamp, hints.Middleware(rules...)))
			r := call(srv, "shop_order", "missing").ExpectError(envelope.NotFound)
			assert.Equal(t, `Call shop_search with query="ord_42" to find the order.`, r.Envelope.NextSteps[0])
			r = call(srv, "shop_order", "badkey").ExpectError(envelope.AuthenticationFailed)
			assert.Equal(t, defaults(envelope.AuthenticationFailed), r.Envelope.NextSteps, "nil from a hint function adds nothing")
			r = call(srv, "shop_order", "resultjson").ExpectError(envelope.NotFound)
			assert.Equal(t, `Call shop_search with query="ord_42" to find the order.`, r.Envelope.NextSteps[0])

			mu.Lock()
			defer mu.Unlock()
			require.Len(t, got, 3, "the function runs once per failure")
			assert.Equal(t, envelope.NotFound, got[0].code)
			assert.ErrorIs(t, got[0].err, errNoRows, "the function gets the Go error")
			assert.Equal(t, envelope.AuthenticationFailed, got[1].code)
			assert.Nil(t, got[2].err, "an error result carries no Go error")
			for _, s := range got {
				assert.Equal(t, "request-ctx", s.ctx)
			}
		})
	}
}

func TestEnvelopeSentinelMatchesErrorResults(t *testing.T) {
	t.Parallel()
	rules := []hints.Rule{hints.For("shop_order",
		hints.OnErrorIs(envelope.ErrNotFound, hints.Call("shop_search", "to find the order's ID")),
	)}
	for _, o := range orders {
		t.Run(o.name, func(t *testing.T) {
			srv := newShop(t, o, hints.Middleware(rules...))
			for _, mode := range []string{"notfound", "missing", "resultjson"} {
				r := call(srv, "shop_order", mode).ExpectError(envelope.NotFound)
				assert.Equal(t, stepSearch, r.Envelope.NextSteps[0], mode)
			}
		})
	}
}

// captureLog returns a logger writing JSON records to the returned buffer.
func captureLog() (*slog.Logger, *syncBuffer) {
	var b syncBuffer
	return slog.New(slog.NewJSONHandler(&b, nil)), &b
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

func TestSentinelWarningWhenNoGoError(t *testing.T) {
	t.Parallel()
	for _, o := range orders {
		t.Run(o.name, func(t *testing.T) {
			logger, buf := captureLog()
			reg := hints.New(shopRules(), hints.WithLogger(logger))
			srv := newShop(t, o, reg.Middleware())
			call(srv, "shop_order", "result").ExpectError(envelope.ExecutionFailed)
			call(srv, "shop_order", "result").ExpectError(envelope.ExecutionFailed)
			logs := buf.String()
			assert.Equal(t, 1, strings.Count(logs, "OnErrorIs"), "warned once: %s", logs)
			assert.Contains(t, logs, `"tool":"shop_order"`)

			// A Go error lets the sentinel be evaluated: no further warning.
			call(srv, "shop_order", "expired").ExpectError(envelope.AuthenticationFailed).ExpectNextStep("shop_authenticate")
			assert.Equal(t, 1, strings.Count(buf.String(), "OnErrorIs"))
		})
	}
}

func TestPanickingHintFunctions(t *testing.T) {
	t.Parallel()
	panics := []struct {
		name string
		fn   func()
	}{
		{"string", func() { panic("hint exploded at /home/dev/shop/hints.go:12") }},
		{"error", func() { panic(errors.New("boom")) }},
		{"nil", func() { panic(nil) }},
		{"runtime", func() { nilMap()["x"] = 1 }},
	}
	for _, o := range orders {
		for _, p := range panics {
			t.Run(o.name+"/"+p.name, func(t *testing.T) {
				logger, buf := captureLog()
				rules := []hints.Rule{
					hints.For("shop_order",
						hints.OnErrorFunc(func(context.Context, mcp.CallToolRequest, hints.Failure) []hints.Step { p.fn(); return nil }),
						hints.OnError(envelope.NotFound, hints.Call("shop_search", "to find the order's ID")),
						hints.OnSuccessFunc(func(context.Context, mcp.CallToolRequest, *mcp.CallToolResult) []hints.Step { p.fn(); return nil }),
					),
				}
				srv := newShop(t, o, hints.New(rules, hints.WithLogger(logger)).Middleware())
				for _, mode := range []string{"notfound", "resultjson"} {
					r := call(srv, "shop_order", mode).ExpectError(envelope.NotFound).NoLeak("hint exploded", "boom", "hints.go")
					assert.Equal(t, append([]string{stepSearch}, defaults(envelope.NotFound)...), r.Envelope.NextSteps)
				}
				r := call(srv, "shop_order", "ok").ExpectSuccess()
				assert.Equal(t, "order ord_1: shipped", r.Text(), "the success goes out without the hint")
				assert.Nil(t, r.CallResult.Meta)

				logs := buf.String()
				assert.Equal(t, 3, strings.Count(logs, "hint function panicked"), logs)
				assert.Contains(t, logs, `"tool":"shop_order"`)
				assert.Contains(t, logs, `"hint":"OnErrorFunc"`)
				assert.Contains(t, logs, `"hint":"OnSuccessFunc"`)
			})
		}
	}
}

// panickyIs is an error whose Is method panics when asked about the hint's
// sentinel, as user code may.
type panickyIs struct{}

func (panickyIs) Error() string { return "panicky" }
func (panickyIs) Is(target error) bool {
	if target == ErrSessionExpired {
		panic("Is exploded")
	}
	return false
}

func TestPanickingIsMethod(t *testing.T) {
	t.Parallel()
	rules := []hints.Rule{hints.For("shop_order",
		hints.OnErrorIs(ErrSessionExpired, hints.Call("shop_authenticate", "with your API key, then retry")),
		hints.OnError(envelope.ExecutionFailed, hints.Call("shop_status", "to see whether the shop is up")),
	)}
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, envelope.Wrap(envelope.ExecutionFailed, panickyIs{})
	}
	for _, o := range orders {
		t.Run(o.name, func(t *testing.T) {
			logger, _ := captureLog()
			s := server.NewMCPServer("shop", "1.0.0")
			o.apply(s, hints.New(rules, hints.WithLogger(logger)).Middleware(), defaultChain())
			s.AddTool(mcp.NewTool("shop_order"), h)
			s.AddTool(mcp.NewTool("shop_status"), okHandler)
			r := middlewaretest.FromServer(t, s).CallTool("shop_order", nil).ExpectError(envelope.ExecutionFailed).NoLeak("Is exploded")
			assert.Equal(t, stepStatus, r.Envelope.NextSteps[0])
			assert.NotContains(t, r.Envelope.NextSteps, stepAuth)
		})
	}
}

func TestHintTextIsRedactedAndBounded(t *testing.T) {
	t.Parallel()
	const secret = "hunter2hunter2"
	rules := []hints.Rule{hints.For("shop_order",
		hints.OnErrorFunc(func(context.Context, mcp.CallToolRequest, hints.Failure) []hints.Step {
			steps := []hints.Step{
				hints.Text("Connect with postgres://shop:" + secret + "@db.internal/shop and retry."),
				hints.Text(strings.Repeat("x", 1<<20)),
				hints.Text(""),
			}
			for i := range 10000 {
				steps = append(steps, hints.Text(fmt.Sprintf("step %d", i)))
			}
			return steps
		}),
		hints.OnSuccessFunc(func(context.Context, mcp.CallToolRequest, *mcp.CallToolResult) []hints.Step {
			return []hints.Step{hints.Text("Authorization: Bearer " + secret + "abcdefghijkl")}
		}),
	)}
	for _, o := range orders {
		t.Run(o.name, func(t *testing.T) {
			srv := newShop(t, o, hints.Middleware(rules...))
			r := call(srv, "shop_order", "notfound").ExpectError(envelope.NotFound).NoLeak(secret)
			def := defaults(envelope.NotFound)
			assert.LessOrEqual(t, len(r.Envelope.NextSteps), 32+len(def))
			assert.Equal(t, def, r.Envelope.NextSteps[len(r.Envelope.NextSteps)-len(def):], "the defaults survive")
			assert.Less(t, len(r.Raw), 16<<10, "a runaway hint function cannot flood the response")
			call(srv, "shop_order", "ok").ExpectSuccess().NoLeak(secret)
		})
	}
}

func TestToolsWithoutRulesPassThrough(t *testing.T) {
	t.Parallel()
	for _, o := range orders {
		t.Run(o.name, func(t *testing.T) {
			with := newShop(t, o, hints.Middleware(shopRules()...))
			without := newShop(t, o, func(next server.ToolHandlerFunc) server.ToolHandlerFunc { return next })
			for _, tc := range []struct{ tool, mode string }{
				{"shop_plain", ""}, {"shop_order", "ok"}, {"shop_cancel", "ok"},
			} {
				a := call(with, tc.tool, tc.mode).ExpectSuccess()
				b := call(without, tc.tool, tc.mode).ExpectSuccess()
				assert.JSONEq(t, string(resultOf(t, b.Raw)), string(resultOf(t, a.Raw)), tc.tool)
			}
		})
	}
}

func resultOf(t *testing.T, raw []byte) json.RawMessage {
	t.Helper()
	var resp struct {
		Result json.RawMessage `json:"result"`
	}
	require.NoError(t, json.Unmarshal(raw, &resp))
	return resp.Result
}

func TestHintsAloneLeaveErrorsToTheEnvelopeLayer(t *testing.T) {
	t.Parallel()
	// Without an envelope layer, an error stays the handler's error (mcp-go
	// answers it as before); an error result still gets its hints.
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(hints.Middleware(shopRules()...))
	s.AddTool(mcp.NewTool("shop_order", mcp.WithString("mode")), shopOrder)
	for _, name := range []string{"shop_authenticate", "shop_search", "shop_status"} {
		s.AddTool(mcp.NewTool(name), okHandler)
	}
	srv := middlewaretest.FromServer(t, s)
	r := srv.CallTool("shop_order", map[string]any{"mode": "result"}).ExpectError(envelope.ExecutionFailed)
	assert.Equal(t, stepStatus, r.Envelope.NextSteps[0])
	r = srv.CallTool("shop_order", map[string]any{"mode": "notfound"})
	require.NotNil(t, r.ProtocolError)
	assert.Contains(t, r.ProtocolError.Message, "no such order")
}

func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	rules := append(shopRules(), hints.For("shop_plain",
		hints.OnSuccessFunc(func(_ context.Context, req mcp.CallToolRequest, _ *mcp.CallToolResult) []hints.Step {
			return []hints.Step{hints.Call("shop_status", "for call %s", req.GetString("n", ""))}
		})))
	for _, o := range orders {
		t.Run(o.name, func(t *testing.T) {
			t.Parallel()
			srv := newShop(t, o, hints.Middleware(rules...))
			modes := []string{"expired", "badkey", "missing", "result", "resultjson", "ok", "internal"}
			var wg sync.WaitGroup
			for i := range 1200 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					mode := modes[i%len(modes)]
					switch mode {
					case "ok":
						n := fmt.Sprint(i)
						r := srv.CallTool("shop_plain", map[string]any{"n": n}).ExpectSuccess()
						assert.Contains(t, r.Text(), "Call shop_status for call "+n+".")
					case "expired":
						// Another order each time: identical failing calls would meet
						// Default's repeated-failure guard after three.
						r := srv.CallTool("shop_order", map[string]any{"id": fmt.Sprint("ord_", i), "mode": mode}).ExpectError(envelope.AuthenticationFailed)
						assert.Equal(t, stepAuth, r.Envelope.NextSteps[0])
					default:
						r := call(srv, "shop_order", mode)
						assert.True(t, r.IsError(), mode)
					}
				}()
			}
			wg.Wait()
		})
	}
}

func TestConstructionPanics(t *testing.T) {
	t.Parallel()
	step := hints.Text("Do something specific.")
	for name, fn := range map[string]func(){
		"empty tool":         func() { hints.For(" ") },
		"zero hint":          func() { hints.For("x", hints.Hint{}) },
		"invalid code":       func() { hints.OnError("nope", step) },
		"no steps":           func() { hints.OnError(envelope.NotFound) },
		"empty step":         func() { hints.OnSuccess(hints.Text("  ")) },
		"nil target":         func() { hints.OnErrorIs(nil, step) },
		"nil error func":     func() { hints.OnErrorFunc(nil) },
		"nil success func":   func() { hints.OnSuccessFunc(nil) },
		"empty call":         func() { hints.Call("", "why") },
		"empty mention":      func() { hints.Mentions("a", "") },
		"zero rule":          func() { hints.New([]hints.Rule{{}}) },
		"zero rule via Use":  func() { hints.Middleware(hints.Rule{}) },
		"no steps onsuccess": func() { hints.OnSuccess() },
	} {
		assert.Panics(t, fn, name)
	}
}

func TestCall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		step hints.Step
		text string
	}{
		{hints.Call("shop_authenticate", "with your API key, then retry"), stepAuth},
		{hints.Call(" get_schema ", " to verify table and column names. "), "Call get_schema to verify table and column names."},
		{hints.Call("execute_query", "with page=%d to continue", 3), "Call execute_query with page=3 to continue."},
		{hints.Call("list_tools", ""), "Call list_tools."},
		{hints.Call("ping", "now?"), "Call ping now?"},
	} {
		assert.Equal(t, tc.text, tc.step.String())
		assert.NotEmpty(t, tc.step.Tool())
	}
	assert.Empty(t, hints.Text("Ask the user.").Tool())
}

func nilMap() map[string]int { return nil }

// selfCycle is an error whose Unwrap returns itself.
type selfCycle struct{}

func (c *selfCycle) Error() string { return "cycle" }
func (c *selfCycle) Unwrap() error { return c }

// A sentinel hint on an error with a cyclic chain: the walk is bounded, so
// the call ends (with no hint) instead of spinning forever.
func TestSentinelHintOnACyclicChainEnds(t *testing.T) {
	t.Parallel()
	errMissing := errors.New("missing")
	rules := hints.For("t_get", hints.OnErrorIs(errMissing, hints.Text("Look elsewhere.")))
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, envelope.Wrap(envelope.NotFound, &selfCycle{})
	}
	srv := middlewaretest.New(t, mcp.NewTool("t_get"), h, append(middleware.Default(), hints.Middleware(rules))...)
	done := make(chan *middlewaretest.Result, 1)
	go func() { done <- srv.Call(nil) }()
	select {
	case r := <-done:
		r.ExpectError(envelope.NotFound)
		assert.NotContains(t, r.Envelope.NextSteps, "Look elsewhere.")
	case <-time.After(5 * time.Minute): // a hang guard, not a timing assertion
		t.Fatal("a cyclic error chain hung the hints layer")
	}
}
