package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

const dsn = "postgres://app:hunter2@10.0.0.5:5432/shop"

var objectSchema = json.RawMessage(`{"type":"object"}`)

// newServer returns a go-sdk server with the Middleware installed.
func newGuardedServer(opts ...gosdk.Option) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0.0.0"}, nil)
	s.AddReceivingMiddleware(gosdk.Middleware(opts...))
	return s
}

// lowLevel adds a low-level tool.
func lowLevel(s *mcp.Server, name string, h mcp.ToolHandler) {
	s.AddTool(&mcp.Tool{Name: name, InputSchema: objectSchema}, h)
}

type getArgs struct {
	ID string `json:"id"`
}

type product struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

func getProduct(_ context.Context, _ *mcp.CallToolRequest, in getArgs) (*mcp.CallToolResult, product, error) {
	switch in.ID {
	case "p-1":
		return nil, product{ID: "p-1", Name: "Lamp"}, nil
	case "p-2":
		return nil, product{}, fmt.Errorf("query: dial %s: connection refused", dsn)
	case "p-3":
		return nil, product{}, gosdk.AddNextSteps(fmt.Errorf("product %q is discontinued: %w", in.ID, gosdk.ErrExecutionFailed), "Call shop_search for a replacement.")
	}
	return nil, product{}, fmt.Errorf("product %q: %w", in.ID, gosdk.ErrNotFound)
}

func TestPanicsEndAsInternalErrors(t *testing.T) {
	t.Parallel()
	var nilMap map[string]int
	var nilPtr *product
	var slice []int
	type custom struct{ Secret string }
	panics := map[string]func(){
		"string":  func() { panic("boom at " + dsn) },
		"error":   func() { panic(fmt.Errorf("wrapped: %s", dsn)) },
		"custom":  func() { panic(custom{Secret: "hunter2"}) },
		"nil":     func() { panic(nil) },
		"nil_map": func() { nilMap["x"] = 1 },
		"index":   func() { _ = slice[len(slice)+3] },
		"nil_ptr": func() { _ = nilPtr.Name },
	}
	log := gosdktest.NewLog(t)
	var seen []string
	s := newGuardedServer(gosdk.WithLogger(log.Logger()), gosdk.WithOnPanic(func(_ context.Context, req *mcp.CallToolRequest, p gosdk.Panic) {
		seen = append(seen, req.Params.Name+"="+p.IncidentID)
	}))
	for name, fn := range panics {
		lowLevel(s, "panic_"+name, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fn()
			return nil, nil
		})
	}
	mcp.AddTool(s, &mcp.Tool{Name: "typed_panic"}, func(context.Context, *mcp.CallToolRequest, getArgs) (*mcp.CallToolResult, product, error) {
		nilMap["typed"]++
		return nil, product{}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "shop_get"}, getProduct)
	c := gosdktest.Connect(t, s)

	ids := map[string]bool{}
	for name := range panics {
		r := c.Call("panic_"+name, nil).ExpectError(gosdk.InternalError).NoLeak("hunter2", "boom", "Secret")
		if r.Envelope == nil {
			continue
		}
		if ids[r.Envelope.IncidentID] {
			t.Errorf("%s: incident %s reused", name, r.Envelope.IncidentID)
		}
		ids[r.Envelope.IncidentID] = true
		log.ExpectIncident(r, "panic")
	}
	c.Call("typed_panic", map[string]any{"id": "x"}).ExpectError(gosdk.InternalError).NoLeak()
	// The process kept serving.
	c.Call("shop_get", map[string]any{"id": "p-1"}).ExpectSuccess()
	if len(seen) != len(panics)+1 {
		t.Errorf("WithOnPanic saw %d panics, want %d: %q", len(seen), len(panics)+1, seen)
	}
}

func TestLowLevelNilErrorIsAnEnvelopeNotACodeZeroError(t *testing.T) {
	t.Parallel()
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("db password=hunter2 at %s", dsn)
	}
	// Bare go-sdk: a JSON-RPC error with code 0 and the password.
	bare := mcp.NewServer(&mcp.Implementation{Name: "bare"}, nil)
	lowLevel(bare, "db_query", h)
	r := gosdktest.Connect(t, bare).Call("db_query", nil).ExpectProtocolError(0)
	if len(gosdktest.Leaks(r.Raw, "hunter2")) == 0 {
		t.Errorf("bare go-sdk no longer leaks; the baseline changed: %s", r.Raw)
	}

	s := newGuardedServer(gosdk.WithUnclassified(gosdk.ExecutionFailed))
	lowLevel(s, "db_query", h)
	c := gosdktest.Connect(t, s)
	c.Call("db_query", nil).ExpectError(gosdk.ExecutionFailed).ExpectMessage("db password=").NoLeak("hunter2")

	def := newGuardedServer()
	lowLevel(def, "db_query", h)
	gosdktest.Connect(t, def).Call("db_query", nil).ExpectError(gosdk.InternalError).NoLeak("hunter2", "10.0.0.5")
}

func TestTypedHandlerErrorsKeepTheirSentinels(t *testing.T) {
	t.Parallel()
	s := newGuardedServer()
	mcp.AddTool(s, &mcp.Tool{Name: "shop_get"}, getProduct)
	// An outer middleware, as tracing would be, still sees the handler's
	// own error through GetError.
	var outer error
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
				outer = r.GetError()
			}
			return res, err
		}
	})
	c := gosdktest.Connect(t, s, gosdktest.AllowMiddlewareOutside())
	c.Call("shop_get", map[string]any{"id": "p-9"}).ExpectError(gosdk.NotFound).ExpectMessage(`product "p-9"`).NoLeak()
	if !errors.Is(outer, gosdk.ErrNotFound) {
		t.Errorf("GetError outside the Middleware = %v, want the handler's error", outer)
	}
	c.Call("shop_get", map[string]any{"id": "p-3"}).ExpectError(gosdk.ExecutionFailed).ExpectNextStep("shop_search")
	// An unclassified error: bare go-sdk sends its raw text, so the agent
	// keeps reading it, redacted, as execution_failed; never an
	// internal_error that would tell it less than before.
	c.Call("shop_get", map[string]any{"id": "p-2"}).ExpectError(gosdk.ExecutionFailed).
		ExpectMessage("connection refused").NoLeak("hunter2")
	c.Call("shop_get", map[string]any{"id": "p-1"}).ExpectSuccess()
	// go-sdk's own schema validation of the arguments.
	c.Call("shop_get", map[string]any{"nam": 1}).ExpectError(gosdk.ValidationError)
	c.Call("shop_get", json.RawMessage(`{"id":7}`)).ExpectError(gosdk.ValidationError)
}

func TestProtocolErrorsStayProtocolErrors(t *testing.T) {
	t.Parallel()
	s := newGuardedServer()
	lowLevel(s, "deliberate", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no such cursor; token sk_live_" + strings.Repeat("a", 24)}
	})
	lowLevel(s, "wrapped", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("lookup at %s: %w", dsn, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad cursor"})
	})
	c := gosdktest.Connect(t, s)
	c.Call("no_such_tool", nil).ExpectProtocolError(jsonrpc.CodeInvalidParams)
	c.Call("wrapped", nil).ExpectProtocolError(jsonrpc.CodeInvalidParams).NoLeak("hunter2")
	r := c.Call("deliberate", nil).ExpectProtocolError(jsonrpc.CodeInvalidParams).NoLeak()
	if r.ProtocolError != nil && !strings.Contains(r.ProtocolError.Message, "no such cursor") {
		t.Errorf("message = %q", r.ProtocolError.Message)
	}
	// go-sdk quotes the tool name the client sent: the answer is bounded
	// whatever its length (it came back whole, 200 KiB, when nothing in it
	// needed redaction).
	r = c.Call(strings.Repeat("x", 200<<10), nil).ExpectProtocolError(jsonrpc.CodeInvalidParams)
	if len(r.Raw) > 65<<10 {
		t.Errorf("an unknown tool's answer of %d bytes, want at most 64 KiB and its mark", len(r.Raw))
	}
}

func TestHandlerResultsAreNormalized(t *testing.T) {
	t.Parallel()
	s := newGuardedServer()
	lowLevel(s, "own_error", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
			&mcp.TextContent{Text: "quota exceeded, api_key=AKIAABCDEFGHIJKLMNOP"},
			&mcp.ImageContent{Data: []byte("PNGDATA"), MIMEType: "image/png"},
		}, Meta: mcp.Meta{"api_key": "s3cr3t-value", "trace": "t-1"}}, nil
	})
	lowLevel(s, "set_error", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var r mcp.CallToolResult
		r.SetError(fmt.Errorf("missing: %w", gosdk.ErrNotFound))
		return &r, nil
	})
	lowLevel(s, "nothing", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, nil
	})
	c := gosdktest.Connect(t, s)
	r := c.Call("own_error", nil).ExpectError(gosdk.ExecutionFailed).ExpectMessage("quota exceeded").NoLeak("AKIAABCDEFGHIJKLMNOP", "s3cr3t-value")
	if r.CallResult != nil {
		if len(r.CallResult.Content) != 2 {
			t.Fatalf("content = %d items, want the envelope and the image", len(r.CallResult.Content))
		}
		if img, ok := r.CallResult.Content[1].(*mcp.ImageContent); !ok || string(img.Data) != "PNGDATA" {
			t.Errorf("image content changed: %#v", r.CallResult.Content[1])
		}
		if r.CallResult.Meta["trace"] != "t-1" {
			t.Errorf("_meta lost: %v", r.CallResult.Meta)
		}
	}
	c.Call("set_error", nil).ExpectError(gosdk.NotFound)
	c.Call("nothing", nil).ExpectError(gosdk.InternalError)
}

// An IsError result's text is read for what it says (core/envelope's
// ClassifyText), as on the mcp-go front; a typed handler's Go error keeps
// its sentinel first.
func TestFailureTextIsClassified(t *testing.T) {
	t.Parallel()
	s := newGuardedServer()
	for name, text := range map[string]string{
		"enoent":  "ENOENT: no such file or directory, open '/x'",
		"refused": "connect ECONNREFUSED 127.0.0.1:5432",
		"tests":   "3 tests failed (TestNotFoundHandler)",
	} {
		lowLevel(s, name, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	}
	mcp.AddTool(s, &mcp.Tool{Name: "typed"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, fmt.Errorf("ENOENT: no such file or directory: %w", gosdk.ErrValidation)
	})
	c := gosdktest.Connect(t, s)
	r := c.Call("enoent", nil).ExpectError(gosdk.NotFound).ExpectMessage("ENOENT").ExpectNextStep("Check the path")
	if r.Envelope != nil && r.Envelope.Retryable {
		t.Errorf("a missing file is not retryable: %s", r.Raw)
	}
	r = c.Call("refused", nil).ExpectError(gosdk.ExecutionFailed)
	if r.Envelope != nil && !r.Envelope.Retryable {
		t.Errorf("a refused connection is retryable: %s", r.Raw)
	}
	c.Call("tests", nil).ExpectError(gosdk.ExecutionFailed)
	c.Call("typed", nil).ExpectError(gosdk.ValidationError)
}

func TestRedactsEveryPositionOfAnErrorResult(t *testing.T) {
	t.Parallel()
	s := newGuardedServer(gosdk.WithoutNormalization())
	lowLevel(s, "leaky", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
			&mcp.TextContent{Text: "failed: " + dsn},
			&mcp.ResourceLink{URI: dsn, Name: "db", Description: "token=hunter2"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///x", Text: "password: hunter2"}},
			&mcp.AudioContent{Data: []byte("hunter2-is-binary"), MIMEType: "audio/wav"},
		}, StructuredContent: map[string]any{"password": "hunter2", "at": dsn}}, nil
	})
	c := gosdktest.Connect(t, s)
	r := c.Call("leaky", nil)
	if !r.IsError() {
		t.Fatalf("want the error result: %s", r.Raw)
	}
	// Binary audio data is left alone (base64 on the wire); everything
	// else is redacted.
	r.NoLeak("hunter2")
	if !strings.Contains(string(r.Raw), `"data":"aHVudGVyMi1pcy1iaW5hcnk="`) {
		t.Errorf("audio data changed: %s", r.Raw)
	}
	for _, frag := range []string{"hunter2@", "token=hunter2", "password: hunter2", `"password":"hunter2"`} {
		if strings.Contains(string(r.Raw), frag) {
			t.Errorf("response holds %q: %s", frag, r.Raw)
		}
	}
}

func TestNoStructuredEnvelopeForToolsWithAnOutputSchema(t *testing.T) {
	t.Parallel()
	s := newGuardedServer()
	mcp.AddTool(s, &mcp.Tool{Name: "shop_get"}, getProduct)
	c := gosdktest.Connect(t, s)
	c.ListTools() // the Middleware learns the output schema here
	r := c.Call("shop_get", map[string]any{"id": "p-9"}).ExpectError(gosdk.NotFound)
	if sc := r.StructuredContent(); sc != nil {
		t.Errorf("structuredContent %s would fail the client's output schema", sc)
	}
	lowLevel(s, "plain", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, gosdk.New(gosdk.NotFound, "gone")
	})
	if c.Call("plain", nil).ExpectError(gosdk.NotFound).StructuredContent() == nil {
		t.Error("a tool without an output schema gets the envelope as structuredContent")
	}
}

func TestLogRecordMatchesTheMCPGoFront(t *testing.T) {
	t.Parallel()
	log := gosdktest.NewLog(t)
	s := newGuardedServer(gosdk.WithLogger(log.Logger(), gosdk.WithArguments()))
	mcp.AddTool(s, &mcp.Tool{Name: "shop_get"}, getProduct)
	c := gosdktest.Connect(t, s)
	c.Call("shop_get", map[string]any{"id": "p-1"}).ExpectSuccess()
	c.Call("shop_get", map[string]any{"id": "p-9", "password": "hunter2"}).ExpectError(gosdk.ValidationError)
	c.Call("shop_get", map[string]any{"id": "p-9"}).ExpectError(gosdk.NotFound)
	c.Call("missing", nil).ExpectProtocolError(jsonrpc.CodeInvalidParams)
	var got []string
	for _, rec := range log.Records() {
		if rec["msg"] != gosdk.LogMessage {
			continue
		}
		got = append(got, fmt.Sprint(rec["tool"], " ", rec["outcome"], " ", rec["error_type"], " ", rec["level"]))
		if _, ok := rec["duration"]; !ok {
			t.Errorf("record without duration: %v", rec)
		}
		if a, _ := rec["arguments"].(string); strings.Contains(a, "hunter2") {
			t.Errorf("arguments logged unmasked: %v", a)
		}
	}
	want := []string{
		"shop_get success <nil> INFO",
		"shop_get tool_error validation_error WARN",
		"shop_get tool_error not_found WARN",
		"missing protocol_error <nil> ERROR",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("records:\n%q\nwant\n%q", got, want)
	}
}
