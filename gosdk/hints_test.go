package gosdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
)

var errSessionExpired = errors.New("session expired")

const (
	stepAuth   = "Call shop_authenticate with your API key, then retry."
	stepKey    = "Ask the user to check the API key configured for the shop."
	stepSearch = "Call shop_search to find the order's ID."
	stepTrack  = "Call shop_track to follow the delivery."
)

var orderRule = gosdk.For("shop_order",
	gosdk.OnErrorIs(errSessionExpired, gosdk.Call("shop_authenticate", "with your API key, then retry")),
	gosdk.OnError(gosdk.AuthenticationFailed, gosdk.Text(stepKey)),
	gosdk.OnError(gosdk.NotFound, gosdk.Call("shop_search", "to find the order's ID")),
	gosdk.OnSuccess(gosdk.Call("shop_track", "to follow the delivery")),
)

type orderIn struct {
	ID string `json:"id"`
}

type orderOut struct {
	Status string `json:"status"`
}

// handlers are the ways a go-sdk tool can fail with err: a low-level
// handler's (nil, err), a typed handler's returned error (go-sdk keeps it
// with SetError).
var handlers = map[string]func(s *mcp.Server, err error){
	"low-level (nil, err)": func(s *mcp.Server, err error) {
		s.AddTool(&mcp.Tool{Name: "shop_order", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, err })
	},
	"typed handler error": func(s *mcp.Server, err error) {
		mcp.AddTool(s, &mcp.Tool{Name: "shop_order"},
			func(context.Context, *mcp.CallToolRequest, orderIn) (*mcp.CallToolResult, orderOut, error) {
				return nil, orderOut{}, err
			})
	},
}

// orders are the two places of the hints layer relative to the layer that
// renders envelopes; go-sdk runs the first middleware of one call
// outermost.
var orders = map[string]func(hints mcp.Middleware) []mcp.Middleware{
	"hints outside": func(h mcp.Middleware) []mcp.Middleware { return []mcp.Middleware{h, gosdk.Middleware()} },
	"hints inside":  func(h mcp.Middleware) []mcp.Middleware { return []mcp.Middleware{gosdk.Middleware(), h} },
}

func TestErrorHintsComeFirstWhereverTheLayerSits(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		err  error
		code string
		want []string // the first steps, in order
		not  string   // a step that must be absent
	}{
		{"code", fmt.Errorf("order 42: %w", gosdk.ErrNotFound), "not_found", []string{stepSearch}, stepAuth},
		{"own sentinel beats the code", gosdk.Wrap(gosdk.AuthenticationFailed, fmt.Errorf("token: %w", errSessionExpired)), "authentication_failed", []string{stepAuth}, stepKey},
		{"code without the sentinel", gosdk.New(gosdk.AuthenticationFailed, "bad key"), "authentication_failed", []string{stepKey}, stepAuth},
	}
	for order, layers := range orders {
		for kind, add := range handlers {
			for _, c := range cases {
				t.Run(order+"/"+kind+"/"+c.name, func(t *testing.T) {
					t.Parallel()
					s := newServer(func(s *mcp.Server) { add(s, c.err) }, layers(gosdk.Hints(orderRule))...)
					env := callTool(t, connect(t, s), "shop_order", map[string]any{"id": "42"}).envelope(t)
					steps := nextSteps(env)
					if env["error_type"] != c.code {
						t.Fatalf("error_type = %v, want %s", env["error_type"], c.code)
					}
					if len(steps) <= len(c.want) || !slices.Equal(steps[:len(c.want)], c.want) {
						t.Fatalf("next_steps = %q, want %q first, then the code's defaults", steps, c.want)
					}
					if slices.Contains(steps, c.not) {
						t.Fatalf("next_steps = %q hold %q", steps, c.not)
					}
				})
			}
		}
	}
}

// A result a handler built from text carries no Go error: the hints layer
// inside the renderer renders it itself, as the renderer would, with the
// tool's steps first.
func TestTextErrorResultGetsTheSteps(t *testing.T) {
	t.Parallel()
	for order, layers := range orders {
		t.Run(order, func(t *testing.T) {
			t.Parallel()
			s := newServer(func(s *mcp.Server) {
				s.AddTool(&mcp.Tool{Name: "shop_order", InputSchema: json.RawMessage(`{"type":"object"}`)},
					func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
							&mcp.TextContent{Text: "the order could not be shipped"},
							&mcp.ImageContent{MIMEType: "image/png", Data: []byte("png")},
						}}, nil
					})
			}, layers(gosdk.Hints(gosdk.For("shop_order", gosdk.OnError(gosdk.ExecutionFailed, gosdk.Text("Check the order number.")))))...)
			w := callTool(t, connect(t, s), "shop_order", nil)
			env := w.envelope(t)
			if env["error_type"] != "execution_failed" || nextSteps(env)[0] != "Check the order number." || len(nextSteps(env)) != 2 {
				t.Fatalf("got %s", w.Raw)
			}
			content := w.JSON["content"].([]any)
			if len(content) != 2 || content[1].(map[string]any)["type"] != "image" {
				t.Fatalf("the handler's other content is lost: %s", w.Raw)
			}
		})
	}
}

func TestReplaceDefaults(t *testing.T) {
	t.Parallel()
	rule := gosdk.For("shop_order", gosdk.ReplaceDefaults(), gosdk.OnError(gosdk.NotFound, gosdk.Text("Ask for the order number.")))
	for order, layers := range orders {
		t.Run(order, func(t *testing.T) {
			t.Parallel()
			s := newServer(func(s *mcp.Server) { handlers["low-level (nil, err)"](s, gosdk.ErrNotFound) }, layers(gosdk.Hints(rule))...)
			env := callTool(t, connect(t, s), "shop_order", nil).envelope(t)
			if got := nextSteps(env); !slices.Equal(got, []string{"Ask for the order number."}) {
				t.Fatalf("next_steps = %q, want only the hint's", got)
			}
		})
	}
}

// Hint functions get go-sdk's own request, the failure as the agent gets
// it, and the Go error.
func TestErrorFuncSeesTheGoSDKRequest(t *testing.T) {
	t.Parallel()
	rule := gosdk.For("shop_order", gosdk.OnErrorFunc(func(_ context.Context, req *mcp.CallToolRequest, f gosdk.Failure) []gosdk.Step {
		var in orderIn
		_ = json.Unmarshal(req.Params.Arguments, &in)
		return []gosdk.Step{gosdk.Text(fmt.Sprintf("Order %s: %s (%s, %v).", in.ID, f.Message, f.Code, errors.Is(f.Err, errSessionExpired)))}
	}))
	err := gosdk.Wrap(gosdk.AuthenticationFailed, errSessionExpired)
	for order, layers := range orders {
		t.Run(order, func(t *testing.T) {
			t.Parallel()
			s := newServer(func(s *mcp.Server) { handlers["typed handler error"](s, err) }, layers(gosdk.Hints(rule))...)
			env := callTool(t, connect(t, s), "shop_order", map[string]any{"id": "42"}).envelope(t)
			if got, want := nextSteps(env)[0], "Order 42: session expired (authentication_failed, true)."; got != want {
				t.Fatalf("first step = %q, want %q", got, want)
			}
		})
	}
}

// A typed handler's error stays reachable through GetError for a layer
// outside both, with its sentinels, when the hints layer hands it on.
func TestGetErrorKeepsTheHandlersError(t *testing.T) {
	t.Parallel()
	var seen error
	spy := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok && r != nil {
				seen = r.GetError()
			}
			return res, err
		}
	}
	err := gosdk.Wrap(gosdk.AuthenticationFailed, errSessionExpired)
	s := newServer(func(s *mcp.Server) { handlers["typed handler error"](s, err) },
		spy, gosdk.Middleware(), gosdk.Hints(orderRule))
	env := callTool(t, connect(t, s), "shop_order", map[string]any{"id": "42"}).envelope(t)
	if nextSteps(env)[0] != stepAuth {
		t.Fatalf("next_steps = %q", nextSteps(env))
	}
	if !errors.Is(seen, errSessionExpired) {
		t.Fatalf("GetError = %v, want the handler's error", seen)
	}
}

func TestSuccessHints(t *testing.T) {
	t.Parallel()
	typed := func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "shop_order"},
			func(context.Context, *mcp.CallToolRequest, orderIn) (*mcp.CallToolResult, orderOut, error) {
				return &mcp.CallToolResult{Meta: mcp.Meta{"io.github.mcpguard/next_steps": []string{"Handler's own."}, "other": 1}},
					orderOut{Status: "shipped"}, nil
			})
	}
	for order, layers := range orders {
		t.Run(order, func(t *testing.T) {
			t.Parallel()
			w := callTool(t, connect(t, newServer(typed, layers(gosdk.Hints(orderRule))...)), "shop_order", map[string]any{"id": "1"})
			texts := w.texts(t)
			if got := texts[len(texts)-1]; got != "Next steps:\n- "+stepTrack {
				t.Fatalf("last text = %q", got)
			}
			if got := w.metaSteps(); !slices.Equal(got, []string{stepTrack, "Handler's own."}) {
				t.Fatalf("_meta steps = %q", got)
			}
			if w.JSON["_meta"].(map[string]any)["other"] != float64(1) {
				t.Fatalf("the handler's _meta is lost: %s", w.Raw)
			}
			if sc, _ := json.Marshal(w.JSON["structuredContent"]); string(sc) != `{"status":"shipped"}` {
				t.Fatalf("structuredContent = %s", sc)
			}
		})
	}
}

func TestSuccessFuncAndWithoutSuccessText(t *testing.T) {
	t.Parallel()
	rule := gosdk.For("shop_order", gosdk.OnSuccessFunc(func(_ context.Context, req *mcp.CallToolRequest, res *mcp.CallToolResult) []gosdk.Step {
		return []gosdk.Step{gosdk.Call("shop_order", "with page=%d to continue", len(res.Content)+1)}
	}))
	add := func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "shop_order", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "page 1"}}}, nil
			})
	}
	w := callTool(t, connect(t, newServer(add, gosdk.Hints(rule))), "shop_order", nil)
	if got := w.texts(t); !slices.Equal(got, []string{"page 1", "Next steps:\n- Call shop_order with page=2 to continue."}) {
		t.Fatalf("texts = %q", got)
	}
	quiet := gosdk.NewHintRegistry([]gosdk.Rule{rule}, gosdk.WithoutSuccessText()).Middleware()
	w = callTool(t, connect(t, newServer(add, quiet)), "shop_order", nil)
	if got := w.texts(t); !slices.Equal(got, []string{"page 1"}) || len(w.metaSteps()) != 1 {
		t.Fatalf("WithoutSuccessText: %s", w.Raw)
	}
}

// A panicking hint function is logged with the tool's name; the result
// goes out without its steps, the other hints' steps kept.
func TestPanickingHintFunctions(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	boom := func(context.Context, *mcp.CallToolRequest, gosdk.Failure) []gosdk.Step { panic("boom") }
	boomOK := func(context.Context, *mcp.CallToolRequest, *mcp.CallToolResult) []gosdk.Step { panic("boom") }
	rule := gosdk.For("shop_order", gosdk.OnErrorFunc(boom), gosdk.OnError(gosdk.NotFound, gosdk.Text("Search.")), gosdk.OnSuccessFunc(boomOK))
	reg := gosdk.NewHintRegistry([]gosdk.Rule{rule}, gosdk.WithHintLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	fail := true
	s := newServer(func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "shop_order", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if fail {
					return nil, gosdk.ErrNotFound
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
	}, gosdk.Middleware(), reg.Middleware())
	cs := connect(t, s)
	if steps := nextSteps(callTool(t, cs, "shop_order", nil).envelope(t)); steps[0] != "Search." {
		t.Fatalf("next_steps = %q", steps)
	}
	fail = false
	if w := callTool(t, cs, "shop_order", nil); !slices.Equal(w.texts(t), []string{"ok"}) || w.metaSteps() != nil {
		t.Fatalf("success with a panicking function: %s", w.Raw)
	}
	if n := strings.Count(logs.String(), `"tool":"shop_order"`); n != 2 || strings.Count(logs.String(), "boom") != 2 {
		t.Fatalf("want two records naming the tool and the panic, got %s", logs.String())
	}
}

// A tool without a rule passes through untouched: the client receives the
// same bytes with the layer as without it.
func TestToolWithoutRulePassesThrough(t *testing.T) {
	t.Parallel()
	add := func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "shop_plain"},
			func(context.Context, *mcp.CallToolRequest, orderIn) (*mcp.CallToolResult, orderOut, error) {
				return nil, orderOut{Status: "ok"}, nil
			})
		s.AddTool(&mcp.Tool{Name: "shop_fail", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "nope"}}}, nil
			})
	}
	bare := connect(t, newServer(add))
	hinted := connect(t, newServer(add, gosdk.Hints(orderRule, gosdk.For("shop_x", gosdk.OnSuccess(gosdk.Text("x"))))))
	for _, tool := range []string{"shop_plain", "shop_fail"} {
		if a, b := callTool(t, bare, tool, nil).Raw, callTool(t, hinted, tool, nil).Raw; a != b {
			t.Fatalf("%s: bare %s, with hints %s", tool, a, b)
		}
	}
}

func TestToolWithoutRuleAllocatesNothing(t *testing.T) {
	ok := &mcp.CallToolResult{}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return ok, nil }
	h := gosdk.Hints(orderRule)(next)
	ctx := context.Background()
	for _, c := range []struct {
		method string
		req    mcp.Request
	}{
		{"tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "shop_plain"}}},
		{"tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "shop_ordex"}}},
		{"tools/list", &mcp.ListToolsRequest{}},
	} {
		allocs := testing.AllocsPerRun(1000, func() {
			if res, err := h(ctx, c.method, c.req); res != ok || err != nil {
				t.Fatal("result changed")
			}
		})
		if allocs != 0 {
			t.Fatalf("%s %v: %v allocs per call, want 0", c.method, c.req, allocs)
		}
	}
}

// An unknown tool stays a JSON-RPC error, as go-sdk answers it, even when
// a rule names it.
func TestUnknownToolStaysAProtocolError(t *testing.T) {
	t.Parallel()
	for order, layers := range orders {
		cs := connect(t, newServer(func(*mcp.Server) {}, layers(gosdk.Hints(gosdk.For("shop_ghost", gosdk.OnError(gosdk.NotFound, gosdk.Text("x")))))...))
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shop_ghost"})
		if err == nil || !strings.Contains(err.Error(), `unknown tool "shop_ghost"`) {
			t.Fatalf("%s: err = %v, want go-sdk's unknown tool error", order, err)
		}
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	s := newServer(func(s *mcp.Server) {
		for _, name := range []string{"shop_order", "shop_search", "shop_track"} {
			s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{}, nil
				})
		}
	})
	good := gosdk.For("shop_order", gosdk.OnError(gosdk.NotFound, gosdk.Call("shop_search", "")), gosdk.OnSuccess(gosdk.Call("shop_track", "")))
	if err := gosdk.Check(context.Background(), s, good); err != nil {
		t.Fatalf("Check = %v", err)
	}
	bad := []gosdk.Rule{
		gosdk.For("shop_order", gosdk.OnError(gosdk.NotFound, gosdk.Call("shop_login", "")), gosdk.Mentions("shop_refund")),
		gosdk.For("shop_ghost", gosdk.OnSuccess(gosdk.Text("x"))),
	}
	err := gosdk.NewHintRegistry(bad).Check(context.Background(), s)
	var want []string
	for _, e := range []gosdk.ReferenceError{{Rule: "shop_order", Tool: "shop_login"}, {Rule: "shop_order", Tool: "shop_refund"}, {Rule: "shop_ghost", Tool: "shop_ghost"}} {
		want = append(want, e.Error())
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Fatalf("Check = %v, want %q", err, want)
	}
	var ref *gosdk.ReferenceError
	if !errors.As(err, &ref) || ref.Tool != "shop_login" {
		t.Fatalf("errors.As: %v", ref)
	}
	if err := gosdk.CheckTools([]*mcp.Tool{{Name: "shop_order"}, nil}, gosdk.For("shop_order")); err != nil {
		t.Fatalf("CheckTools = %v", err)
	}
}

// A handler's own JSON-RPC error passes through the hints layer as it is,
// its data included: it is no tool failure.
func TestHandlersJSONRPCErrorPassesUntouched(t *testing.T) {
	t.Parallel()
	own := &jsonrpc.Error{Code: -32042, Message: "over quota", Data: json.RawMessage(`{"retry":"later"}`)}
	add := func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "shop_order", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, own })
	}
	_, err := connect(t, newServer(add, gosdk.Hints(orderRule))).CallTool(context.Background(), &mcp.CallToolParams{Name: "shop_order"})
	var got *jsonrpc.Error
	if !errors.As(err, &got) || got.Code != own.Code || string(got.Data) != string(own.Data) {
		t.Fatalf("err = %#v, want %#v", err, own)
	}
}
