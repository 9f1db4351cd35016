package gosdk_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/validate"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

type coerceArgs struct {
	Limit int  `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
	Exact bool `json:"exact,omitempty"`
}

type echoed struct {
	Limit int  `json:"limit"`
	Exact bool `json:"exact"`
}

func echoArgs(_ context.Context, _ *mcp.CallToolRequest, in coerceArgs) (*mcp.CallToolResult, echoed, error) {
	return nil, echoed(in), nil
}

// WithCoercion takes numbers and booleans sent as strings, when the
// string holds exactly one, still bounded by the tags; without it they
// are a validation_error, as the schema says. Each coercion is logged for
// the operator, never told to the agent.
func TestAddToolWithCoercion(t *testing.T) {
	t.Parallel()
	log := gosdktest.NewLog(t)
	s := newPlainServer()
	s.AddReceivingMiddleware(gosdk.Middleware())
	gosdk.AddTool(s, &mcp.Tool{Name: "strict"}, echoArgs, validate.WithLogger(log.Logger()))
	gosdk.AddTool(s, &mcp.Tool{Name: "lenient"}, echoArgs, gosdk.WithCoercion(), validate.WithLogger(log.Logger()))
	c := gosdktest.Connect(t, s)

	args := json.RawMessage(`{"limit":"5","exact":"true"}`)
	r := c.Call("lenient", args).ExpectSuccess()
	if got := string(r.StructuredContent()); got != `{"exact":true,"limit":5}` {
		t.Errorf("structuredContent %s", got)
	}
	if strings.Contains(string(r.Raw), "coerc") {
		t.Errorf("the agent is told about coercion: %s", r.Raw)
	}
	c.Call("lenient", json.RawMessage(`{"limit":"99"}`)).ExpectError(gosdk.ValidationError).ExpectField("limit", "max")
	c.Call("lenient", json.RawMessage(`{"limit":"0x5"}`)).ExpectError(gosdk.ValidationError).ExpectField("limit", "type")
	c.Call("strict", args).ExpectError(gosdk.ValidationError).ExpectField("limit", "type").ExpectField("exact", "type")
	c.Call("strict", json.RawMessage(`{"limit":5,"exact":true}`)).ExpectSuccess()
	if rec := log.Find("coerced", "exact,limit"); rec == nil || rec["tool"] != "lenient" {
		t.Errorf("the coercion is not logged: %v", log.Records())
	}
	if n := len(log.Records()); n != 1 {
		t.Errorf("%d records, want the one coercion: %v", n, log.Records())
	}
}

// WithValidator checks and advertises with a Validator of one's own: its
// named patterns are in the input schema and refuse what does not match.
func TestAddToolWithValidator(t *testing.T) {
	t.Parallel()
	v := gosdk.NewValidator(nil)
	v.RegisterPattern("order_ref", `ORD-[0-9]{4}`)
	type orderArgs struct {
		Ref string `json:"ref" validate:"required,order_ref"`
	}
	s := newPlainServer()
	s.AddReceivingMiddleware(gosdk.Middleware())
	gosdk.AddTool(s, &mcp.Tool{Name: "order"}, func(_ context.Context, _ *mcp.CallToolRequest, in orderArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Ref}}}, nil, nil
	}, gosdk.WithValidator(v))
	c := gosdktest.Connect(t, s)
	if tools := c.ListTools(); len(tools) != 1 || !strings.Contains(string(tools[0]), `"pattern":"^(?:ORD-[0-9]{4})$"`) {
		t.Fatalf("tools/list: %s", tools)
	}
	if r := c.Call("order", map[string]any{"ref": "ORD-1234"}).ExpectSuccess(); r.Text() != "ORD-1234" {
		t.Errorf("text %q", r.Text())
	}
	f := c.Call("order", map[string]any{"ref": "ORD-1234; DROP TABLE"}).ExpectError(gosdk.ValidationError).Field("ref")
	if f == nil || f.Rule != "pattern" || f.Param != `^(?:ORD-[0-9]{4})$` {
		t.Errorf("field %+v", f)
	}
}

// validate.WithEnvelopeOptions given to AddTool adds to the Middleware's
// configuration, as on the mcp-go front: the layer's default next steps
// for validation_error, and the chain's tool failure _meta, both reach
// the agent. (The layer's options were ignored before.)
func TestAddToolEnvelopeOptionsAddToTheMiddlewares(t *testing.T) {
	t.Parallel()
	const step = "Call shop_help to see the allowed limits."
	s := newPlainServer()
	s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithToolFailureMeta()))
	gosdk.AddTool(s, &mcp.Tool{Name: "strict"}, echoArgs,
		validate.WithEnvelopeOptions(envelope.WithDefaultNextSteps(envelope.ValidationError, step)))
	r := gosdktest.Connect(t, s).Call("strict", json.RawMessage(`{"limit":99}`)).
		ExpectError(gosdk.ValidationError).ExpectField("limit", "max").ExpectNextStep(step)
	if !strings.Contains(string(r.Raw), gosdk.ToolFailureMetaKey) {
		t.Errorf("the Middleware's WithToolFailureMeta is lost: %s", r.Raw)
	}
}
