package recover_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
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

// dsn is what a hostile value's MarshalJSON panics or fails with.
const dsn = "postgres://app:s3cr3t-pw@db.internal:5432/shop"

// panicky panics when encoding/json encodes it, as a value whose
// MarshalJSON dereferences a nil connection would.
type panicky struct{}

func (panicky) MarshalJSON() ([]byte, error) { panic("encoding with " + dsn) }

// failing fails to encode, with an error that quotes its configuration.
type failing struct{}

func (failing) MarshalJSON() ([]byte, error) { return nil, errors.New("no connection to " + dsn) }

// customText is a content type of the handler's own: it embeds
// mcp.TextContent to be an mcp.Content and encodes itself.
type customText struct {
	mcp.TextContent
	fail bool
}

func (c customText) MarshalJSON() ([]byte, error) {
	if c.fail {
		panic("custom content " + dsn)
	}
	return json.Marshal(map[string]string{"type": "text", "text": "custom " + c.Text})
}

// ptrPanicky panics when encoding/json encodes it through a pointer, as
// it does with an addressable field.
type ptrPanicky struct{}

func (*ptrPanicky) MarshalJSON() ([]byte, error) { panic("pointer method " + dsn) }

// node is a recursive type, whose value can be a cycle.
type node struct {
	ID   string
	Next *node
}

func metaWith(v any) *mcp.Meta { return &mcp.Meta{AdditionalFields: map[string]any{"trace": v}} }

// hostileResults are successful results that the SDK cannot encode: a
// user-typed value in each position a result carries one.
func hostileResults() map[string]*mcp.CallToolResult {
	text := func() *mcp.CallToolResult { return mcp.NewToolResultText("ok") }
	with := func(f func(r *mcp.CallToolResult)) *mcp.CallToolResult { r := text(); f(r); return r }
	nan := math.NaN()
	return map[string]*mcp.CallToolResult{
		"structuredContent panics": with(func(r *mcp.CallToolResult) { r.StructuredContent = panicky{} }),
		"structuredContent fails":  with(func(r *mcp.CallToolResult) { r.StructuredContent = failing{} }),
		"nested value panics":      with(func(r *mcp.CallToolResult) { r.StructuredContent = map[string]any{"rows": []any{panicky{}}} }),
		"structuredContent NaN":    with(func(r *mcp.CallToolResult) { r.StructuredContent = map[string]any{"price": nan} }),
		"struct field NaN":         with(func(r *mcp.CallToolResult) { r.StructuredContent = product{ID: "P-1", Price: nan} }),
		"typed map NaN":            with(func(r *mcp.CallToolResult) { r.StructuredContent = map[string][]float64{"p": {1, nan}} }),
		"struct field panics":      with(func(r *mcp.CallToolResult) { r.StructuredContent = struct{ At panicky }{} }),
		"pointer method panics":    with(func(r *mcp.CallToolResult) { r.StructuredContent = &struct{ At ptrPanicky }{} }),
		"interface field panics":   with(func(r *mcp.CallToolResult) { r.StructuredContent = struct{ V any }{panicky{}} }),
		"cycle":                    with(func(r *mcp.CallToolResult) { n := &node{ID: dsn}; n.Next = n; r.StructuredContent = n }),
		"invalid json.Number":      with(func(r *mcp.CallToolResult) { r.StructuredContent = struct{ N json.Number }{json.Number(dsn)} }),
		"invalid raw structured":   with(func(r *mcp.CallToolResult) { r.StructuredContent = json.RawMessage(`{"dsn":"` + dsn) }),
		"invalid RawStructured":    with(func(r *mcp.CallToolResult) { r.RawStructuredContent = json.RawMessage(`{"dsn":` + dsn) }),
		"input request fails": with(func(r *mcp.CallToolResult) {
			r.InputRequests = mcp.InputRequests{"q1": {Method: mcp.MethodElicitationCreate}} // no params: mcp-go cannot encode it
		}),
		"result _meta panics":  with(func(r *mcp.CallToolResult) { r.Meta = metaWith(panicky{}) }),
		"progress token fails": with(func(r *mcp.CallToolResult) { r.Meta = &mcp.Meta{ProgressToken: failing{}} }),
		"text item _meta panics": {Content: []mcp.Content{
			mcp.TextContent{Type: "text", Text: "ok", Meta: metaWith(panicky{})}}},
		"pointer item _meta fails": {Content: []mcp.Content{
			&mcp.TextContent{Type: "text", Text: "ok", Meta: metaWith(failing{})}}},
		"image annotation NaN": {Content: []mcp.Content{
			mcp.ImageContent{Type: "image", Data: "AA==", MIMEType: "image/png", Annotated: mcp.Annotated{Annotations: &mcp.Annotations{Priority: &nan}}}}},
		"embedded resource _meta panics": {Content: []mcp.Content{
			mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "file:///a", Text: "a", Meta: map[string]any{"x": panicky{}}})}},
		"resource link _meta panics": {Content: []mcp.Content{
			mcp.ResourceLink{Type: "resource_link", URI: "file:///a", Name: "a", Meta: metaWith(panicky{})}}},
		"custom content panics": {Content: []mcp.Content{customText{fail: true}}},
		"tool result item panics": {Content: []mcp.Content{
			mcp.ToolResultContent{Type: "tool_result", ToolUseID: "t1", StructuredContent: panicky{}}}},
	}
}

// A result the SDK would fail to encode, after every layer has returned,
// is made encodable inside recover's reach: a panic or an encoding error
// ends as an internal_error with an incident ID, and what the value said
// reaches only the log. Before the fix, the harness's json.Marshal of the
// response (what mcp-go's transports do) panicked or failed.
func TestAResultTheSDKCannotEncodeBecomesAnIncident(t *testing.T) {
	t.Parallel()
	for name, res := range hostileResults() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			logs := middlewaretest.NewLog(t)
			srv := middlewaretest.New(t, shopTool, returning(res),
				middleware.Default(middleware.WithLogger(logs.Logger()))...)
			r := srv.Call(nil)
			expect(t, r, envelope.InternalError)
			r.NoLeak(dsn, "s3cr3t")
			logs.ExpectIncident(r)
		})
	}
}

// recover alone, the layer that makes the promise, keeps it too.
func TestRecoverAloneMakesResultsEncodable(t *testing.T) {
	t.Parallel()
	logs := middlewaretest.NewLog(t)
	res := mcp.NewToolResultText("ok")
	res.StructuredContent = panicky{}
	srv := middlewaretest.New(t, shopTool, returning(res), mcprecover.Middleware(mcprecover.WithLogger(logs.Logger())))
	r := srv.Call(nil)
	assert.Equal(t, "shop_tool", expect(t, r, envelope.InternalError).Tool)
	r.NoLeak(dsn)
	rec := logs.ExpectIncident(r)
	require.NotNil(t, rec)
	assert.Contains(t, rec["panic"], "encoding with", "the panic value is logged")
}

type product struct {
	ID    string  `json:"id"`
	Price float64 `json:"price"`
	Tags  []string
}

type stamp struct{}

func (stamp) MarshalJSON() ([]byte, error) { return []byte(`"2026-12-01"`), nil }

// Results that encode go out byte for byte as bare mcp-go sends them,
// whatever positions carry user-typed values.
func TestEncodableResultsGoOutAsTheBareSDKSendsThem(t *testing.T) {
	t.Parallel()
	rich := func() *mcp.CallToolResult {
		res := mcp.NewToolResultStructured(product{ID: "P-1", Price: 129.5, Tags: []string{"a"}}, `{"id":"P-1"}`)
		res.Meta = &mcp.Meta{ProgressToken: "tok", AdditionalFields: map[string]any{"at": stamp{}, "n": 1, "nested": map[string]any{"p": product{ID: "P-2"}}}}
		res.Content = append(res.Content,
			mcp.TextContent{Type: "text", Text: "value", Meta: metaWith(stamp{})},
			&mcp.ImageContent{Type: "image", Data: "AA==", MIMEType: "image/png"},
			mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "file:///a", Text: "a", Meta: map[string]any{"at": stamp{}}}),
			customText{TextContent: mcp.TextContent{Text: "x"}},
		)
		return res
	}
	cases := map[string]func() *mcp.CallToolResult{
		"rich": rich,
		"raw": func() *mcp.CallToolResult {
			r := rich()
			r.StructuredContent = json.RawMessage(`{"id":"P-1"}`)
			return r
		},
		"text only": func() *mcp.CallToolResult { return mcp.NewToolResultText("ok") },
		"plain map": func() *mcp.CallToolResult {
			return mcp.NewToolResultStructuredOnly(map[string]any{"id": "P-1", "n": 2.5})
		},
		"RawStructu": func() *mcp.CallToolResult {
			r := rich()
			r.RawStructuredContent = json.RawMessage(`{"raw":true}`)
			return r
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bare := middlewaretest.New(t, shopTool, returning(build())).Call(nil)
			guarded := middlewaretest.New(t, shopTool, returning(build()), middleware.Default()...).Call(nil)
			guarded.ExpectSuccess()
			assert.JSONEq(t, string(bare.Raw), string(guarded.Raw))
			assert.Equal(t, string(bare.Raw), string(guarded.Raw), "byte for byte")
		})
	}
}

// The handler's result is never modified: a result it shares between
// calls (a cached answer) stays as it was.
func TestTheHandlersResultIsNotModified(t *testing.T) {
	t.Parallel()
	res := mcp.NewToolResultStructured(product{ID: "P-1"}, "P-1")
	res.Meta = metaWith(stamp{})
	srv := middlewaretest.New(t, shopTool, returning(res), middleware.Default()...)
	srv.Call(nil).ExpectSuccess()
	srv.Call(nil).ExpectSuccess()
	assert.IsType(t, product{}, res.StructuredContent)
	assert.IsType(t, stamp{}, res.Meta.AdditionalFields["trace"])
}

func returning(res *mcp.CallToolResult) server.ToolHandlerFunc {
	return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil }
}

// A result whose values are all plain, a typed struct with finite floats
// included, passes through recover without an allocation: it is checked,
// not encoded, and mcp-go encodes it.
func TestAPlainTypedResultCostsNoAllocation(t *testing.T) {
	res := mcp.NewToolResultStructured(product{ID: "P-1", Price: 129.5, Tags: []string{"a"}}, "P-1")
	res.Meta = &mcp.Meta{AdditionalFields: map[string]any{"page": 2, "next_steps": []string{"x"}}}
	h := mcprecover.Middleware()(returning(res))
	ctx := context.Background()
	got, _ := h(ctx, mcp.CallToolRequest{})
	assert.Same(t, res, got)
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = h(ctx, mcp.CallToolRequest{}) }))
}
