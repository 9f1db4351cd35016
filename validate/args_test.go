package validate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"testing"

	"github.com/go-playground/validator/v10"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/validate"
)

func TestMissingAndNullArguments(t *testing.T) {
	t.Parallel()
	type none struct {
		Verbose bool `json:"verbose,omitempty"`
	}
	s := newServer(t)
	s.AddTool(mcp.NewTool("t", validate.InputSchema[none]()), validate.Handler(func(ctx context.Context, req mcp.CallToolRequest, a none) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}))
	for _, args := range []string{"", "null", "{}", " { } "} {
		if r := callRaw(t, s, "t", args); r.isErr || r.text != "ok" {
			t.Errorf("arguments %q: %s", args, r.raw)
		}
	}
}

func TestArgsAloneAnswersWithEnvelope(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	called := false
	h := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		called = true
		a, ok := validate.ArgsFrom[SearchArgs](ctx)
		if _, wrong := validate.ArgsFrom[Filter](ctx); wrong {
			return nil, errors.New("ArgsFrom found the wrong type")
		}
		return mcp.NewToolResultText(fmt.Sprintf("%v %s", ok, a.Query)), nil
	}
	s.AddTool(mcp.NewTool("shop_search", validate.InputSchema[SearchArgs]()), middleware.Wrap(h, validate.Args[SearchArgs]()))
	r := callRaw(t, s, "shop_search", `{"query":"x"}`)
	mustInvalid(t, r)
	if called {
		t.Fatal("handler ran on invalid arguments")
	}
	r = callRaw(t, s, "shop_search", `{"query":"agents"}`)
	if r.text != "true agents" {
		t.Fatalf("got %s", r.raw)
	}
}

func TestForToolsAndUnderDefault(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.Use(append(middleware.Default(), middleware.ForTools(validate.Args[SearchArgs](), "shop_search"))...)
	s.AddTool(mcp.NewTool("shop_search", validate.InputSchema[SearchArgs]()), validate.Handler(func(ctx context.Context, req mcp.CallToolRequest, a SearchArgs) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("no card %s: %w", a.CardID, envelope.ErrNotFound)
	}))
	s.AddTool(mcp.NewTool("other"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("untouched"), nil
	})
	env := mustInvalid(t, callRaw(t, s, "shop_search", `{"query":"agents","limit":9999}`))
	if f := field(t, env, "limit"); f.Rule != "max" {
		t.Fatalf("got %+v", f)
	}
	// Handler returns the handler's error as a Go error: the envelope layer
	// sees the sentinel.
	r := callRaw(t, s, "shop_search", `{"query":"agents","card_id":"AB-1234"}`)
	if r.env == nil || r.env.ErrorType != envelope.NotFound {
		t.Fatalf("want not_found, got %s", r.raw)
	}
	if r := callRaw(t, s, "other", `{"anything":1}`); r.text != "untouched" {
		t.Fatalf("other tool: %s", r.raw)
	}
}

func TestHandlerReturnsGoError(t *testing.T) {
	t.Parallel()
	h := validate.Handler(func(ctx context.Context, req mcp.CallToolRequest, a SearchArgs) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("card %s: %w", a.CardID, envelope.ErrNotFound)
	})
	req := mcp.CallToolRequest{}
	req.Params.Name = "shop_search"
	req.Params.Arguments = map[string]any{"query": "agents", "card_id": "AB-1234"}
	res, err := h(context.Background(), req)
	if res != nil || !errors.Is(err, envelope.ErrNotFound) {
		t.Fatalf("got %v, %v", res, err)
	}
	// Malformed raw arguments, which only an in-process caller can send.
	req.Params.Arguments = json.RawMessage(`{"query":`)
	res, err = h(context.Background(), req)
	if err != nil || res == nil || !res.IsError {
		t.Fatalf("got %v, %v", res, err)
	}
	env, ok := envelope.FromResult(res)
	if !ok || env.Fields[0].Rule != "json" {
		t.Fatalf("got %+v", env)
	}
}

func TestPanickingValidatorIsInternal(t *testing.T) {
	t.Parallel()
	v := validate.New(validator.New())
	if err := v.Engine().RegisterValidation("explode", func(fl validator.FieldLevel) bool {
		if fl.Field().String() == "boom" {
			panic("password=hunter2 at /srv/app/main.go:12")
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	type args struct {
		Word string `json:"word" validate:"explode"`
	}
	s := newServer(t)
	s.AddTool(mcp.NewTool("t", validate.InputSchema[args](validate.WithValidator(v))),
		middleware.Wrap(func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		}, validate.Args[args](validate.WithValidator(v), validate.WithEnvelopeOptions(envelope.WithLogger(slog.New(slog.DiscardHandler))))))
	if r := callRaw(t, s, "t", `{"word":"fine"}`); r.text != "ok" {
		t.Fatalf("got %s", r.raw)
	}
	r := callRaw(t, s, "t", `{"word":"boom"}`)
	if r.env == nil || r.env.ErrorType != envelope.InternalError || r.env.IncidentID == "" {
		t.Fatalf("want internal_error with incident, got %s", r.raw)
	}
	if contains(r.raw, "hunter2") || contains(r.raw, "main.go") {
		t.Fatalf("panic leaked: %s", r.raw)
	}
}

func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddTool(mcp.NewTool("shop_search", validate.InputSchema[SearchArgs]()), middleware.Wrap(
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a, _ := validate.ArgsFrom[SearchArgs](ctx)
			return mcp.NewToolResultText(a.Query), nil
		}, validate.Args[SearchArgs]()))
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				q := fmt.Sprintf("query-%d-%d", i, j)
				if j%2 == 0 {
					if r := callRaw(t, s, "shop_search", `{"query":"`+q+`"}`); r.text != q {
						t.Errorf("got %s", r.raw)
					}
				} else if r := callRaw(t, s, "shop_search", `{"query":"`+q+`","limit":0.5}`); r.env == nil {
					t.Errorf("got %s", r.raw)
				}
			}
		}()
	}
	wg.Wait()
}

// The shell builds its binder when the layer or handler is built, so
// that a type or tags that cannot work fail at start-up (the core's tests
// hold every such case); a nil handler is the shell's own refusal.
func TestConstructionPanics(t *testing.T) {
	t.Parallel()
	type enumTag struct {
		A string `json:"a" jsonschema:"enum=x,enum=y"`
	}
	handler := func(context.Context, mcp.CallToolRequest, enumTag) (*mcp.CallToolResult, error) { return nil, nil }
	cases := map[string]func(){
		"Args on a non-struct":       func() { validate.Args[string]() },
		"Handler on bad tags":        func() { validate.Handler(handler) },
		"InputSchema on bad tags":    func() { validate.InputSchema[enumTag]() },
		"OutputSchema on non-struct": func() { validate.OutputSchema[int]() },
		"nil handler":                func() { validate.Handler[SearchArgs](nil) },
	}
	for name, fn := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			fn()
		})
	}
}

func TestToolsListAdvertisesDerivedSchema(t *testing.T) {
	t.Parallel()
	s := searchServer(t)
	out := s.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	b, _ := json.Marshal(out)
	var resp struct {
		Result struct {
			Tools []struct {
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &resp); err != nil || len(resp.Result.Tools) != 1 {
		t.Fatalf("tools/list: %s", b)
	}
	var got, want any
	_ = json.Unmarshal(resp.Result.Tools[0].InputSchema, &got)
	_ = json.Unmarshal(validate.Schema[SearchArgs](), &want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("advertised %s\nwant %s", resp.Result.Tools[0].InputSchema, validate.Schema[SearchArgs]())
	}
	for _, kw := range []string{`"additionalProperties":false`, `"maximum":50`, `"pattern":"^(?:[A-Z]{2}-[0-9]{4})$"`, `"description":"What to search for"`, `"required":["query"]`, `"enum":["AI/ML","Data","Web/API","Security"]`, `"required":["name"]`} {
		if !contains(string(resp.Result.Tools[0].InputSchema), kw) {
			t.Errorf("schema lacks %s: %s", kw, resp.Result.Tools[0].InputSchema)
		}
	}
}

// The derived schema must compile in mcp-go's own validator: a schema it
// cannot compile is silently skipped, so the proof is that it rejects.
func TestAcceptedByWithInputSchemaValidation(t *testing.T) {
	t.Parallel()
	s := newServer(t, server.WithInputSchemaValidation())
	ran := 0
	s.AddTool(mcp.NewTool("shop_search", validate.InputSchema[SearchArgs]()), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ran++
		return mcp.NewToolResultText("ok"), nil
	})
	if r := callRaw(t, s, "shop_search", `{"query":"agents","category":"AI/ML","limit":5,"card_id":"AB-1234","filters":[{"name":"abc","op":"eq"}]}`); r.text != "ok" {
		t.Fatalf("valid call refused: %s", r.raw)
	}
	for _, bad := range []string{`{"query":"agents","limit":9999}`, `{"query":"agents","card_id":"../../etc/passwd"}`, `{"query":"agents","category":"ai/ml"}`, `{"query":"agents","zzz":1}`, `{}`} {
		if r := callRaw(t, s, "shop_search", bad); !r.isErr {
			t.Errorf("mcp-go accepted %s: %s", bad, r.raw)
		}
	}
	if ran != 1 {
		t.Fatalf("handler ran %d times", ran)
	}
}
