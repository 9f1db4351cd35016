package validate_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/validate"
)

func init() {
	// One definition, shared by the schema's pattern and the runtime check.
	validate.RegisterPattern("card_id", `[A-Z]{2}-[0-9]{4}`)
}

type Filter struct {
	Name string `json:"name" validate:"required,alpha"`
	Op   string `json:"op,omitempty" validate:"omitempty,oneof=eq ne lt gt"`
}

type SearchArgs struct {
	Query    string   `json:"query" jsonschema:"What to search for" validate:"required,min=3,max=300"`
	Category string   `json:"category,omitempty" validate:"omitempty,oneof=AI/ML Data 'Web/API' Security"`
	Limit    int      `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
	CardID   string   `json:"card_id,omitempty" validate:"omitempty,card_id"`
	Filters  []Filter `json:"filters,omitempty" validate:"omitempty,max=5,dive"`
	APIKey   string   `json:"api_key,omitempty" validate:"omitempty,min=40"`
	Extra    any      `json:"extra,omitempty"`
	Price    *float64 `json:"max_price,omitempty" validate:"omitempty,gte=0,lte=1000"`
}

// rpcResult is what a client receives for a tools/call.
type rpcResult struct {
	raw    string
	isErr  bool
	text   string
	env    *envelope.Envelope
	rpcErr bool
}

func newServer(t testing.TB, opts ...server.ServerOption) *server.MCPServer {
	t.Helper()
	return server.NewMCPServer("test", "1.0.0", append([]server.ServerOption{server.WithToolCapabilities(true)}, opts...)...)
}

func callRaw(t testing.TB, s *server.MCPServer, tool, args string) rpcResult {
	t.Helper()
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":` + strconv.Quote(tool)
	if args != "" {
		msg += `,"arguments":` + args
	}
	msg += `}}`
	out := s.HandleMessage(context.Background(), json.RawMessage(msg))
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatalf("marshal response: %v", err)
	}
	var resp struct {
		Error  json.RawMessage `json:"error"`
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatalf("decode response %s: %v", b, err)
	}
	r := rpcResult{raw: string(b), rpcErr: len(resp.Error) > 0, isErr: resp.Result.IsError}
	if len(resp.Result.Content) > 0 {
		r.text = resp.Result.Content[0].Text
	}
	if r.isErr {
		r.env, _ = envelope.Parse(r.text)
	}
	return r
}

// searchServer serves shop_search with Args[SearchArgs] and no other layer,
// echoing the validated arguments as JSON.
func searchServer(t testing.TB, opts ...validate.Option) *server.MCPServer {
	s := newServer(t)
	s.AddTool(mcp.NewTool("shop_search", validate.InputSchema[SearchArgs](opts...)),
		validate.Handler(func(ctx context.Context, req mcp.CallToolRequest, a SearchArgs) (*mcp.CallToolResult, error) {
			b, _ := json.Marshal(a)
			return mcp.NewToolResultText(string(b)), nil
		}, opts...))
	return s
}

func mustInvalid(t *testing.T, r rpcResult) *envelope.Envelope {
	t.Helper()
	if r.rpcErr {
		t.Fatalf("got a JSON-RPC error, want an isError result: %s", r.raw)
	}
	if !r.isErr || r.env == nil {
		t.Fatalf("want an isError envelope, got %s", r.raw)
	}
	if r.env.ErrorType != envelope.ValidationError {
		t.Fatalf("error_type = %s, want validation_error: %s", r.env.ErrorType, r.raw)
	}
	if len(r.env.Fields) == 0 {
		t.Fatalf("validation_error without fields: %s", r.raw)
	}
	return r.env
}

func field(t *testing.T, env *envelope.Envelope, path string) envelope.FieldError {
	t.Helper()
	for _, f := range env.Fields {
		if f.Field == path {
			return f
		}
	}
	t.Fatalf("no field error for %q in %+v", path, env.Fields)
	return envelope.FieldError{}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// maxFailureBytes is the bound the README states for a validation
// failure of SearchArgs on the wire, whatever the size of the request
// (core/validate's tests hold the envelope to it, the fuzz tests here the
// whole response).
const maxFailureBytes = 24 << 10

// compile compiles a schema a client reads as mcp-go's
// WithInputSchemaValidation does, with santhosh-tekuri/jsonschema/v6.
func compile(t *testing.T, raw json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem:///schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem:///schema.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v\n%s", err, raw)
	}
	return s
}

func schemaValid(t *testing.T, schema *jsonschema.Schema, doc string) bool {
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return schema.Validate(inst) == nil
}
