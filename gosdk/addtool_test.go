package gosdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/validate"
	"github.com/mcpguard/mcpguard/gosdk"
)

// frontsArgs is core/validate's frontsArgs, field for field: the struct
// whose schema and validation failure every SDK front renders identically
// (the mcp-go validate tests declare it too). The golden files live in
// core/validate/testdata/fronts, which the core's own test holds to
// core/validate.
type frontsArgs struct {
	Query    string   `json:"query" jsonschema:"What to search for" validate:"required,min=3,max=300"`
	Category string   `json:"category,omitempty" validate:"omitempty,oneof=AI/ML Data Security"`
	Limit    int      `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
	Tags     []string `json:"tags,omitempty" validate:"omitempty,max=5,dive,min=2"`
}

// hit is an untagged result: its output schema is go-sdk's inference.
type hit struct {
	SKU   string   `json:"sku" jsonschema:"the product's SKU"`
	Name  string   `json:"name"`
	Price float64  `json:"price"`
	Tags  []string `json:"tags,omitempty"`
}

type hits struct {
	Hits  []hit `json:"hits"`
	Total int   `json:"total"`
}

// price is a result whose tags say more than its types.
type price struct {
	SKU      string `json:"sku" validate:"required"`
	Cents    int    `json:"cents" validate:"min=0"`
	Currency string `json:"currency" validate:"oneof=EUR USD"`
}

func golden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../core/validate/testdata/fronts/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(b)
}

func newPlainServer() *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1"}, nil)
}

func call(t testing.TB, cs *mcp.ClientSession, tool, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("tools/call %s: %v", tool, err)
	}
	return res
}

func text(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatalf("no content in %+v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content[0] is %T", res.Content[0])
	}
	return tc.Text
}

func canonical(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	b, _ = json.Marshal(x)
	return string(b)
}

func searchHandler(_ context.Context, _ *mcp.CallToolRequest, in frontsArgs) (*mcp.CallToolResult, hits, error) {
	return nil, hits{Hits: []hit{{SKU: "SKU-1", Name: in.Query, Price: 9.5}}, Total: 1}, nil
}

func tools(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		m[tool.Name] = tool
	}
	return m
}

// The input schema a go-sdk client reads is core/validate's Schema[T]: the
// golden file the mcp-go front's test holds validate.InputSchema to.
func TestAddToolAdvertisesTheCoresInputSchema(t *testing.T) {
	t.Parallel()
	s := newPlainServer()
	gosdk.AddTool(s, &mcp.Tool{Name: "search"}, searchHandler)
	got := canonical(t, tools(t, connect(t, s))["search"].InputSchema)
	if want := canonical(t, json.RawMessage(golden(t, "search.schema.json"))); got != want {
		t.Errorf("inputSchema\n got %s\nwant %s", got, want)
	}
	if want := canonical(t, validate.Schema[frontsArgs]()); got != want {
		t.Errorf("inputSchema\n got %s\nwant core's %s", got, want)
	}
}

// Invalid arguments get, byte for byte, the envelope the mcp-go front sends
// (the golden file), never go-sdk's `validating "arguments"` text, and
// the handler does not run.
func TestAddToolInvalidArgumentsGetTheValidationEnvelope(t *testing.T) {
	t.Parallel()
	ran := false
	s := newPlainServer()
	gosdk.AddTool(s, &mcp.Tool{Name: "search"}, func(ctx context.Context, req *mcp.CallToolRequest, in frontsArgs) (*mcp.CallToolResult, hits, error) {
		ran = true
		return searchHandler(ctx, req, in)
	})
	res := call(t, connect(t, s), "search", `{"query":"ab","category":"ai/ml","limit":99,"colour":"red"}`)
	if !res.IsError {
		t.Fatalf("isError = false: %+v", res)
	}
	if got, want := text(t, res), string(golden(t, "search.envelope.json")); got != want {
		t.Errorf("envelope\n got %s\nwant %s", got, want)
	}
	if strings.Contains(canonical(t, res), "validating") {
		t.Errorf("go-sdk's validation text reached the client: %s", canonical(t, res))
	}
	if ran {
		t.Error("the handler ran on invalid arguments")
	}
}

// Each way arguments can be wrong is a validation_error with fields.
func TestAddToolRefusesWhatGoSDKWouldLetThrough(t *testing.T) {
	t.Parallel()
	s := newPlainServer()
	gosdk.AddTool(s, &mcp.Tool{Name: "search"}, searchHandler)
	cs := connect(t, s)
	for args, field := range map[string]string{
		`{}`:                                  "query",
		`{"query":"lamp","limit":"5"}`:        "limit",
		`{"query":"lamp","Query":"x"}`:        "Query",
		`{"query":"lamp","tags":["a"]}`:       "tags[0]",
		`{"query":"lamp","limit":5.5}`:        "limit",
		`{"query":"lamp","category":"AI/ML"}`: "",
	} {
		res := call(t, cs, "search", args)
		if field == "" {
			if res.IsError {
				t.Errorf("%s: refused: %s", args, text(t, res))
			}
			continue
		}
		env, ok := gosdk.Parse(text(t, res))
		if !res.IsError || !ok || env.ErrorType != gosdk.ValidationError {
			t.Errorf("%s: want a validation_error envelope, got %s", args, canonical(t, res))
			continue
		}
		found := false
		for _, f := range env.Fields {
			found = found || f.Field == field
		}
		if !found {
			t.Errorf("%s: no field error for %q in %+v", args, field, env.Fields)
		}
	}
}

// A handler's error keeps its sentinels: classified by its chain on the
// wire, and reachable through GetError for layers outside.
func TestAddToolHandlerErrorKeepsItsSentinels(t *testing.T) {
	t.Parallel()
	errMissing := fmt.Errorf("sku SKU-9 is not in the catalogue: %w", gosdk.ErrNotFound)
	var seen error
	s := newPlainServer()
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok && r != nil {
				seen = r.GetError()
			}
			return res, err
		}
	})
	gosdk.AddTool(s, &mcp.Tool{Name: "search"}, func(context.Context, *mcp.CallToolRequest, frontsArgs) (*mcp.CallToolResult, hits, error) {
		return nil, hits{}, errMissing
	})
	res := call(t, connect(t, s), "search", `{"query":"lamp"}`)
	env, ok := gosdk.Parse(text(t, res))
	if !res.IsError || !ok || env.ErrorType != gosdk.NotFound {
		t.Fatalf("want a not_found envelope, got %s", canonical(t, res))
	}
	if !errors.Is(seen, gosdk.ErrNotFound) || !errors.Is(seen, errMissing) {
		t.Errorf("GetError() = %v, does not unwrap to the handler's error", seen)
	}
	// The tool declares an output schema: the envelope is not its
	// structured content, which a strict client would check against it.
	if res.StructuredContent != nil {
		t.Errorf("structuredContent = %v on a tool with an outputSchema", res.StructuredContent)
	}
}

// A *jsonrpc.Error stays a protocol error, as with mcp.AddTool.
func TestAddToolJSONRPCErrorStaysAProtocolError(t *testing.T) {
	t.Parallel()
	s := newPlainServer()
	gosdk.AddTool(s, &mcp.Tool{Name: "search"}, func(context.Context, *mcp.CallToolRequest, frontsArgs) (*mcp.CallToolResult, hits, error) {
		return nil, hits{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no such page"}
	})
	_, err := connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "lamp"}})
	if err == nil || !strings.Contains(err.Error(), "no such page") {
		t.Errorf("err = %v, want the JSON-RPC error", err)
	}
}

// On success, and for the output schema of an untagged Out, a client sees
// exactly what go-sdk's own mcp.AddTool sends for the same handler.
func TestAddToolSuccessMatchesGoSDK(t *testing.T) {
	t.Parallel()
	s := newPlainServer()
	gosdk.AddTool(s, &mcp.Tool{Name: "ours"}, searchHandler)
	mcp.AddTool(s, &mcp.Tool{Name: "theirs"}, searchHandler)
	withText := func(_ context.Context, _ *mcp.CallToolRequest, in frontsArgs) (*mcp.CallToolResult, *hits, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found " + in.Query}}}, nil, nil
	}
	gosdk.AddTool(s, &mcp.Tool{Name: "ours_text"}, withText)
	mcp.AddTool(s, &mcp.Tool{Name: "theirs_text"}, withText)
	cs := connect(t, s)
	list := tools(t, cs)
	for _, pair := range [][2]string{{"ours", "theirs"}, {"ours_text", "theirs_text"}} {
		ours, theirs := list[pair[0]], list[pair[1]]
		if got, want := canonical(t, ours.OutputSchema), canonical(t, theirs.OutputSchema); got != want {
			t.Errorf("%s outputSchema\n got %s\nwant %s", pair[0], got, want)
		}
		got := canonical(t, call(t, cs, pair[0], `{"query":"lamp","limit":3}`))
		want := canonical(t, call(t, cs, pair[1], `{"query":"lamp","limit":3}`))
		if got != want {
			t.Errorf("%s result\n got %s\nwant %s", pair[0], got, want)
		}
	}
}

// Out's validate tags say more than its types: the output schema states
// them, and a result that breaks them is never sent.
func TestAddToolTaggedOutputIsCheckedBeforeItIsSent(t *testing.T) {
	t.Parallel()
	s := newPlainServer()
	gosdk.AddTool(s, &mcp.Tool{Name: "price"}, func(_ context.Context, _ *mcp.CallToolRequest, in frontsArgs) (*mcp.CallToolResult, price, error) {
		if in.Query == "yen" {
			return nil, price{SKU: "SKU-1", Cents: 100, Currency: "JPY"}, nil
		}
		return nil, price{SKU: "SKU-1", Cents: 100, Currency: "EUR"}, nil
	})
	cs := connect(t, s)
	if got, want := canonical(t, tools(t, cs)["price"].OutputSchema), canonical(t, validate.OutputSchemaOf[price]()); got != want {
		t.Errorf("outputSchema\n got %s\nwant %s", got, want)
	}
	ok := call(t, cs, "price", `{"query":"euro"}`)
	if ok.IsError || text(t, ok) != `{"sku":"SKU-1","cents":100,"currency":"EUR"}` {
		t.Errorf("result %s", canonical(t, ok))
	}
	bad := call(t, cs, "price", `{"query":"yen"}`)
	env, parsed := gosdk.Parse(text(t, bad))
	if !bad.IsError || !parsed || env.ErrorType != gosdk.InternalError || env.IncidentID == "" {
		t.Fatalf("want an internal_error envelope, got %s", canonical(t, bad))
	}
	if strings.Contains(canonical(t, bad), "JPY") {
		t.Errorf("the refused result reached the client: %s", canonical(t, bad))
	}
}

func TestAddToolPanicsOnArgumentsThatAreNotAStruct(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "is of kind map, not a struct") {
			t.Errorf("recover() = %v", r)
		}
	}()
	gosdk.AddTool(newPlainServer(), &mcp.Tool{Name: "m"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	})
}
