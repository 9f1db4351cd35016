package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// panicky panics when encoding/json encodes it.
type panicky struct{}

func (panicky) MarshalJSON() ([]byte, error) { panic("encoding with " + dsn) }

// failing fails to encode, with an error that quotes its configuration.
type failing struct{}

func (failing) MarshalJSON() ([]byte, error) { return nil, errors.New("no connection to " + dsn) }

// ownContent is a content type of the handler's own: it embeds
// mcp.Content, as go-sdk's unexported method requires, and encodes itself.
type ownContent struct {
	mcp.Content
	fail bool
}

func (c ownContent) MarshalJSON() ([]byte, error) {
	if c.fail {
		panic("own content " + dsn)
	}
	return []byte(`{"type":"text","text":"own"}`), nil
}

type stamp struct{}

func (stamp) MarshalJSON() ([]byte, error) { return []byte(`"2026-12-01"`), nil }

func okText() *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}
}

func withResult(f func(*mcp.CallToolResult)) *mcp.CallToolResult { r := okText(); f(r); return r }

// hostileGoSDKResults are successful results go-sdk cannot encode: a
// user-typed value in each position a result carries one.
func hostileGoSDKResults() map[string]*mcp.CallToolResult {
	nan := math.NaN()
	return map[string]*mcp.CallToolResult{
		"structuredContent panics": withResult(func(r *mcp.CallToolResult) { r.StructuredContent = panicky{} }),
		"structuredContent fails":  withResult(func(r *mcp.CallToolResult) { r.StructuredContent = failing{} }),
		"nested value panics":      withResult(func(r *mcp.CallToolResult) { r.StructuredContent = map[string]any{"rows": []any{panicky{}}} }),
		"structuredContent NaN":    withResult(func(r *mcp.CallToolResult) { r.StructuredContent = map[string]any{"price": nan} }),
		"invalid raw structured":   withResult(func(r *mcp.CallToolResult) { r.StructuredContent = json.RawMessage(`{"dsn":"` + dsn) }),
		"result _meta panics":      withResult(func(r *mcp.CallToolResult) { r.Meta = mcp.Meta{"trace": panicky{}} }),
		"text _meta fails":         {Content: []mcp.Content{&mcp.TextContent{Text: "ok", Meta: mcp.Meta{"x": failing{}}}}},
		"image annotation NaN": {Content: []mcp.Content{
			&mcp.ImageContent{Data: []byte("x"), MIMEType: "image/png", Annotations: &mcp.Annotations{Priority: nan}}}},
		"audio _meta panics": {Content: []mcp.Content{&mcp.AudioContent{Data: []byte("x"), MIMEType: "audio/wav", Meta: mcp.Meta{"x": panicky{}}}}},
		"link _meta panics":  {Content: []mcp.Content{&mcp.ResourceLink{URI: "file:///a", Name: "a", Meta: mcp.Meta{"x": panicky{}}}}},
		"embedded resource _meta panics": {Content: []mcp.Content{&mcp.EmbeddedResource{
			Resource: &mcp.ResourceContents{URI: "file:///a", Text: "a", Meta: mcp.Meta{"x": panicky{}}}}}},
		"own content panics": {Content: []mcp.Content{ownContent{fail: true}}},
		//lint:ignore SA1019 sampling is deprecated, yet a handler can still return its items
		"tool result item panics": {Content: []mcp.Content{&mcp.ToolResultContent{ToolUseID: "t1", StructuredContent: panicky{}}}},
	}
}

// go-sdk encodes a result in its jsonrpc2 layer after every middleware has
// returned, outside any recover: before the fix, a panic there ended the
// test binary and an encoding error left the call unanswered. The
// Middleware makes the result encodable while it can still recover.
func TestAResultGoSDKCannotEncodeBecomesAnIncident(t *testing.T) {
	t.Parallel()
	for name, res := range hostileGoSDKResults() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			logs := gosdktest.NewLog(t)
			s := newGuardedServer(gosdk.WithLogger(logs.Logger()))
			lowLevel(s, "shop_report", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil })
			c := gosdktest.Connect(t, s)
			r := c.Call("shop_report", nil).ExpectError(gosdk.InternalError).NoLeak(dsn, "hunter2")
			logs.ExpectIncident(r)
			c.Call("shop_report", nil).ExpectError(gosdk.InternalError) // the session still answers
		})
	}
}

// Results that encode go out exactly as bare go-sdk sends them.
func TestEncodableResultsGoOutAsBareGoSDKSendsThem(t *testing.T) {
	t.Parallel()
	rich := func() *mcp.CallToolResult {
		return &mcp.CallToolResult{
			Meta: mcp.Meta{"at": stamp{}, "n": 1, "nested": map[string]any{"p": product{ID: "p-2"}}},
			Content: []mcp.Content{
				&mcp.TextContent{Text: "value", Meta: mcp.Meta{"at": stamp{}}},
				&mcp.ImageContent{Data: []byte("x"), MIMEType: "image/png"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a", Text: "a", Meta: mcp.Meta{"at": stamp{}}}},
				ownContent{},
			},
			StructuredContent: product{ID: "p-1", Name: "Lamp"},
		}
	}
	cases := map[string]func() *mcp.CallToolResult{
		"rich": rich,
		"raw": func() *mcp.CallToolResult {
			r := rich()
			r.StructuredContent = json.RawMessage(`{"id":"p-1"}`)
			return r
		},
		"text only": okText,
		"plain map": func() *mcp.CallToolResult {
			r := okText()
			r.StructuredContent = map[string]any{"id": "p-1", "n": 2.5}
			return r
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			serve := func(guarded bool) *gosdktest.Session {
				s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0.0.0"}, nil)
				if guarded {
					s.AddReceivingMiddleware(gosdk.Middleware())
				}
				lowLevel(s, "shop_report", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return build(), nil })
				return gosdktest.Connect(t, s)
			}
			bare := serve(false).Call("shop_report", nil)
			guarded := serve(true).Call("shop_report", nil).ExpectSuccess()
			assert.Equal(t, string(bare.Raw), string(guarded.Raw), "byte for byte")
		})
	}
}

// A successful tools/call whose result holds only plain values, a typed
// struct with finite floats included, costs the Middleware its one context
// value and nothing for encoding: it is checked, not encoded.
func TestAPlainTypedResultIsNotEncoded(t *testing.T) {
	ok := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}},
		StructuredContent: product{ID: "p-1", Name: "Lamp"}, Meta: mcp.Meta{"page": 2}}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return ok, nil }
	h := gosdk.Middleware()(next)
	ctx := context.Background()
	call := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "shop_get", Arguments: []byte(`{"id":"p-1"}`)}}
	got, _ := h(ctx, "tools/call", call)
	assert.Same(t, ok, got)
	assert.Equal(t, 1.0, testing.AllocsPerRun(1000, func() { _, _ = h(ctx, "tools/call", call) }), "the context value only")
}
