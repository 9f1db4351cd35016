package validate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/go-playground/validator/v10"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/validate"
)

func TestSeedCases(t *testing.T) {
	t.Parallel()
	s := searchServer(t)

	t.Run("category ai/ml suggests AI/ML", func(t *testing.T) {
		for _, sent := range []string{"ai/ml", "ai-ml", "AI ML", "Ai_Ml"} {
			env := mustInvalid(t, callRaw(t, s, "shop_search", `{"query":"agents","category":"`+sent+`"}`))
			f := field(t, env, "category")
			if f.Rule != "oneof" || f.Suggestion != "AI/ML" {
				t.Errorf("%q: got %+v, want rule oneof with suggestion AI/ML", sent, f)
			}
			if !reflect.DeepEqual(f.Allowed, []string{"AI/ML", "Data", "Web/API", "Security"}) {
				t.Errorf("allowed = %q", f.Allowed)
			}
		}
	})
	t.Run("limit 9999 is over max 50", func(t *testing.T) {
		env := mustInvalid(t, callRaw(t, s, "shop_search", `{"query":"agents","limit":9999}`))
		f := field(t, env, "limit")
		if f.Rule != "max" || f.Param != "50" || f.Message != "limit must be at most 50 (got 9999)" {
			t.Errorf("got %+v", f)
		}
	})
	t.Run("card_id path traversal fails the pattern", func(t *testing.T) {
		env := mustInvalid(t, callRaw(t, s, "shop_search", `{"query":"agents","card_id":"../../etc/passwd"}`))
		f := field(t, env, "card_id")
		if f.Rule != "pattern" || f.Param != `^(?:[A-Z]{2}-[0-9]{4})$` {
			t.Errorf("got %+v", f)
		}
	})
	t.Run("valid call reaches the handler", func(t *testing.T) {
		r := callRaw(t, s, "shop_search", `{"query":"agents","category":"AI/ML","limit":50,"card_id":"AB-1234"}`)
		if r.isErr || r.rpcErr || !contains(r.text, `"limit":50`) {
			t.Fatalf("got %s", r.raw)
		}
	})
}

func TestBindingFailures(t *testing.T) {
	t.Parallel()
	s := searchServer(t, validate.WithMaxBytes(4096), validate.WithMaxDepth(8))
	cases := []struct {
		name, args, path, rule, param string
	}{
		{"wrong type", `{"query":"agents","limit":"ten"}`, "limit", "type", "integer"},
		{"not an integer", `{"query":"agents","limit":2.5}`, "limit", "type", "integer"},
		{"int overflow", `{"query":"agents","limit":1e30}`, "limit", "max", "9223372036854775807"},
		{"null for a string", `{"query":null}`, "query", "type", "string"},
		{"object for a string", `{"query":{"a":1}}`, "query", "type", "string"},
		{"unknown member", `{"query":"agents","qeury":"x"}`, "qeury", "unknown", ""},
		{"case-variant member", `{"Query":"agents"}`, "Query", "unknown", ""},
		{"escaped key", `{"quer\u0079":"agents","x\u0079":1}`, "xy", "unknown", ""},
		{"array arguments", `[1,2]`, "", "type", "object"},
		{"string arguments", `"query"`, "", "type", "object"},
		{"number arguments", `5`, "", "type", "object"},
		{"too deep", `{"query":"agents","extra":` + strings.Repeat("[", 20) + strings.Repeat("]", 20) + `}`, "", "depth", "8"},
		{"too deep under unknown", `{"zzz":` + strings.Repeat(`{"a":`, 20) + "1" + strings.Repeat("}", 20) + `}`, "", "depth", "8"},
		{"too large", `{"query":"` + strings.Repeat("a", 5000) + `"}`, "", "size", "4096"},
		{"nested path", `{"query":"agents","filters":[{"name":"ok"},{"name":"ok","op":"like"},{"op":"eq"}]}`, "filters[2].name", "required", ""},
		{"nested wrong type", `{"query":"agents","filters":[{"name":"ok"},{"name":7}]}`, "filters[1].name", "type", "string"},
		{"nested unknown", `{"query":"agents","filters":[{"name":"ok","value":1}]}`, "filters[0].value", "unknown", ""},
		{"pointer bound", `{"query":"agents","max_price":-1}`, "max_price", "gte", "0"},
		{"missing required", `{}`, "query", "required", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := mustInvalid(t, callRaw(t, s, "shop_search", c.args))
			f := field(t, env, c.path)
			if f.Rule != c.rule || f.Param != c.param {
				t.Errorf("got %+v, want rule %q param %q", f, c.rule, c.param)
			}
			if f.Message == "" {
				t.Error("empty message")
			}
		})
	}
}

func TestAllViolationsAtOnce(t *testing.T) {
	t.Parallel()
	s := searchServer(t)
	env := mustInvalid(t, callRaw(t, s, "shop_search",
		`{"query":"ab","category":"ai/ml","limit":"ten","card_id":"x","filters":[{"name":"a1","op":"like"}],"bogus":true}`))
	var got []string
	for _, f := range env.Fields {
		got = append(got, f.Field+":"+f.Rule)
	}
	want := []string{"bogus:unknown", "limit:type", "query:min", "category:oneof", "card_id:pattern", "filters[0].name:alpha", "filters[0].op:oneof"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fields = %q\nwant %q", got, want)
	}
	if !strings.HasPrefix(env.Message, "7 invalid arguments: ") {
		t.Errorf("message = %q", env.Message)
	}
}

func TestNoRawValueEchoed(t *testing.T) {
	t.Parallel()
	s := searchServer(t)
	t.Run("secret-named field gets no preview", func(t *testing.T) {
		r := callRaw(t, s, "shop_search", `{"query":"agents","api_key":"hunter2-but-short"}`)
		env := mustInvalid(t, r)
		if f := field(t, env, "api_key"); f.Rule != "min" {
			t.Fatalf("got %+v", f)
		}
		if contains(r.raw, "hunter2") {
			t.Fatalf("secret echoed: %s", r.raw)
		}
	})
	t.Run("long value is clipped", func(t *testing.T) {
		long := strings.Repeat("x", 10000)
		r := callRaw(t, s, "shop_search", `{"query":"`+long+`"}`)
		env := mustInvalid(t, r)
		if f := field(t, env, "query"); f.Rule != "max" || f.Param != "300" {
			t.Fatalf("got %+v", f)
		}
		if contains(r.raw, strings.Repeat("x", 40)) {
			t.Fatal("long value echoed")
		}
	})
	t.Run("token in a value is redacted", func(t *testing.T) {
		r := callRaw(t, s, "shop_search", `{"query":"agents","category":"ghp_abcdefghijklmnopqrstuvwxyz0123456789"}`)
		mustInvalid(t, r)
		if contains(r.raw, "ghp_abcdef") {
			t.Fatalf("token echoed: %s", r.raw)
		}
	})
	t.Run("unknown key is clipped", func(t *testing.T) {
		r := callRaw(t, s, "shop_search", `{"query":"agents","`+strings.Repeat("k", 500)+`":1}`)
		mustInvalid(t, r)
		if contains(r.raw, strings.Repeat("k", 100)) {
			t.Fatal("long key echoed")
		}
	})
}

func TestIntegerForms(t *testing.T) {
	t.Parallel()
	s := searchServer(t)
	for _, n := range []string{"5", "5.0", "5e0", "0.5e1", "50"} {
		r := callRaw(t, s, "shop_search", `{"query":"agents","limit":`+n+`}`)
		if r.isErr || r.rpcErr {
			t.Errorf("limit %s: %s", n, r.raw)
		}
	}
	for _, n := range []string{"5.5", "51", "-1", "1e-999999999", "123456789012345678901234567890"} {
		mustInvalid(t, callRaw(t, s, "shop_search", `{"query":"agents","limit":`+n+`}`))
	}
	// mcp-go itself refuses a float64 overflow anywhere in the arguments
	// with a JSON-RPC error, so huge exponents reach Args only in process.
	h := validate.Handler(func(ctx context.Context, req mcp.CallToolRequest, a SearchArgs) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	for _, n := range []string{"1e999999999", "-1e999999999", "1e-999999999", "0e999999999"} {
		req := mcp.CallToolRequest{}
		req.Params.Arguments = json.RawMessage(`{"query":"agents","limit":` + n + `}`)
		res, err := h(context.Background(), req)
		if err != nil || res == nil {
			t.Fatalf("%s: %v %v", n, res, err)
		}
		if want := n != "0e999999999"; res.IsError != want {
			t.Errorf("%s: isError = %v", n, res.IsError)
		}
	}
}

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
	if got := validate.RuntimeOnly[args](validate.WithValidator(v)); !reflect.DeepEqual(got, []string{"word: explode"}) {
		t.Fatalf("RuntimeOnly = %q", got)
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

func TestConstructionPanics(t *testing.T) {
	t.Parallel()
	type undefinedTag struct {
		A string `json:"a" validate:"no_such_tag"`
	}
	type enumTag struct {
		A string `json:"a" jsonschema:"enum=x,enum=y"`
	}
	type byteField struct {
		A []byte `json:"a"`
	}
	type recursive struct {
		Children []recursive `json:"children"`
	}
	type badParam struct {
		A int `json:"a" validate:"max=lots"`
	}
	type patternOnInt struct {
		A int `json:"a" validate:"card_id"`
	}
	cases := map[string]func(){
		"non-struct":      func() { validate.Args[string]() },
		"undefined tag":   func() { validate.Args[undefinedTag]() },
		"jsonschema enum": func() { validate.InputSchema[enumTag]() },
		"[]byte":          func() { validate.Args[byteField]() },
		"recursive":       func() { validate.Schema[recursive]() },
		"bad param":       func() { validate.Schema[badParam]() },
		"pattern on int":  func() { validate.Schema[patternOnInt]() },
		"depth 0":         func() { validate.WithMaxDepth(0) },
		"bytes 0":         func() { validate.WithMaxBytes(0) },
		"nil validator":   func() { validate.WithValidator(nil) },
		"nil handler":     func() { validate.Handler[SearchArgs](nil) },
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

func TestRuntimeOnlyIsStated(t *testing.T) {
	t.Parallel()
	type args struct {
		Code string   `json:"code" jsonschema:"Product code" validate:"required,startswith=SKU-"`
		Tags []string `json:"tags,omitempty" validate:"dive,lowercase"`
	}
	got := validate.RuntimeOnly[args]()
	if !reflect.DeepEqual(got, []string{"code: startswith=SKU-", "tags[]: lowercase"}) {
		t.Fatalf("RuntimeOnly = %q", got)
	}
	schema := string(validate.Schema[args]())
	if !contains(schema, `"description":"Product code Also checked when called: startswith=SKU-."`) {
		t.Fatalf("schema: %s", schema)
	}
}
