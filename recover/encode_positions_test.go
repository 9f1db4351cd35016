package recover_test

import (
	"context"
	"encoding/json"
	"fmt"
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

// cursor encodes as the number of times it has been encoded, as a value
// read from a stream or stamped with the time of encoding does: what the
// client receives shows whether the SDK encoded the value again after
// recover had (and could catch a panic in that second encoding only by
// luck).
type cursor struct{ reads *int }

func newCursor() cursor { return cursor{reads: new(int)} }

func (c cursor) MarshalJSON() ([]byte, error) {
	*c.reads++
	return fmt.Appendf(nil, `{"read":%d}`, *c.reads), nil
}

// cursorText is a content type of the handler's own that encodes itself
// as a cursor does.
type cursorText struct {
	mcp.TextContent
	c cursor
}

func (t cursorText) MarshalJSON() ([]byte, error) {
	b, _ := t.c.MarshalJSON()
	return fmt.Appendf(nil, `{"type":"text","text":%q}`, b), nil
}

// cursorResource is resource contents of the handler's own type.
type cursorResource struct {
	mcp.TextResourceContents
	c cursor
}

func (r cursorResource) MarshalJSON() ([]byte, error) {
	b, _ := r.c.MarshalJSON()
	return fmt.Appendf(nil, `{"uri":"file:///c","text":%q}`, b), nil
}

// panickyResource is resource contents whose encoding panics.
type panickyResource struct{ mcp.TextResourceContents }

func (panickyResource) MarshalJSON() ([]byte, error) { panic("resource " + dsn) }

// onePosition builds results with a cursor in one position each, and the
// other positions plain (text content, as mcp.NewToolResultText builds).
func onePosition() map[string]func() *mcp.CallToolResult {
	text := func(f func(r *mcp.CallToolResult)) func() *mcp.CallToolResult {
		return func() *mcp.CallToolResult { r := mcp.NewToolResultText("ok"); f(r); return r }
	}
	items := func(c ...mcp.Content) func() *mcp.CallToolResult {
		return func() *mcp.CallToolResult { return &mcp.CallToolResult{Content: c} }
	}
	meta := func() *mcp.Meta { return metaWith(newCursor()) }
	return map[string]func() *mcp.CallToolResult{
		"structuredContent": text(func(r *mcp.CallToolResult) { r.StructuredContent = newCursor() }),
		"structuredContent with plain _meta": text(func(r *mcp.CallToolResult) {
			r.StructuredContent = map[string]any{"rows": []any{newCursor()}}
			r.Meta = &mcp.Meta{ProgressToken: "tok", AdditionalFields: map[string]any{"page": 2}}
		}),
		"result _meta":   text(func(r *mcp.CallToolResult) { r.Meta = meta() }),
		"progress token": text(func(r *mcp.CallToolResult) { r.Meta = &mcp.Meta{ProgressToken: newCursor()} }),
		"text item _meta": func() *mcp.CallToolResult {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent{Type: "text", Text: "ok", Meta: meta()}}}
		},
		"second item's _meta": items(mcp.NewTextContent("first"), &mcp.TextContent{Type: "text", Text: "ok", Meta: meta()}),
		"image item _meta":    items(mcp.ImageContent{Type: "image", Data: "AA==", MIMEType: "image/png", Meta: meta()}),
		"image pointer _meta": items(&mcp.ImageContent{Type: "image", Data: "AA==", MIMEType: "image/png", Meta: meta()}),
		"audio item _meta":    items(mcp.AudioContent{Type: "audio", Data: "AA==", MIMEType: "audio/wav", Meta: meta()}),
		"audio pointer _meta": items(&mcp.AudioContent{Type: "audio", Data: "AA==", MIMEType: "audio/wav", Meta: meta()}),
		"link pointer _meta":  items(&mcp.ResourceLink{Type: "resource_link", URI: "file:///a", Name: "a", Meta: meta()}),
		"embedded _meta": items(mcp.EmbeddedResource{Type: "resource", Meta: meta(),
			Resource: mcp.TextResourceContents{URI: "file:///a", Text: "a"}}),
		"embedded pointer _meta": items(&mcp.EmbeddedResource{Type: "resource", Meta: meta(),
			Resource: &mcp.TextResourceContents{URI: "file:///a", Text: "a"}}),
		"text resource pointer _meta": items(mcp.NewEmbeddedResource(
			&mcp.TextResourceContents{URI: "file:///a", Text: "a", Meta: map[string]any{"c": newCursor()}})),
		"blob resource _meta": items(mcp.NewEmbeddedResource(
			mcp.BlobResourceContents{URI: "file:///b", Blob: "AA==", Meta: map[string]any{"c": newCursor()}})),
		"blob resource pointer _meta": items(&mcp.EmbeddedResource{Type: "resource",
			Resource: &mcp.BlobResourceContents{URI: "file:///b", Blob: "AA==", Meta: map[string]any{"c": newCursor()}}}),
		"resource of the handler's type": items(mcp.NewEmbeddedResource(cursorResource{c: newCursor()})),
		"content of the handler's type":  items(cursorText{c: newCursor()}),
	}
}

// Each value recover encodes is encoded once: the client receives the
// bytes recover made, exactly as bare mcp-go sends the value, and the SDK
// does not encode it again (which would run the handler's code outside any
// recover). Before the fix of the mutants this kills, a result whose
// encoding recover discarded went out with {"read":2}.
func TestEachValueIsEncodedOnceWherePositionItIsIn(t *testing.T) {
	t.Parallel()
	for name := range onePosition() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// A fresh result, and fresh cursors, for each server.
			build := func() *mcp.CallToolResult { return onePosition()[name]() }
			bare := middlewaretest.New(t, shopTool, returning(build())).Call(nil)
			require.Regexp(t, `read\\?":1\b`, string(bare.Raw), "bare mcp-go sends the cursor, encoded once")
			for chain, layers := range map[string][]server.ToolHandlerMiddleware{
				"recover": {mcprecover.Middleware()},
				"default": middleware.Default(),
			} {
				guarded := middlewaretest.New(t, shopTool, returning(build()), layers...).Call(nil)
				guarded.ExpectSuccess()
				assert.Equal(t, string(bare.Raw), string(guarded.Raw), "%s: byte for byte, encoded once", chain)
			}
		})
	}
}

// Every position of a content item or resource that can hold a value of
// the handler's, in each of the forms mcp-go accepts (value and pointer),
// is made encodable: a panic there ends as an incident.
func TestAPanicInAnyContentFormBecomesAnIncident(t *testing.T) {
	t.Parallel()
	meta := func() *mcp.Meta { return metaWith(panicky{}) }
	res := map[string][]mcp.Content{
		"image pointer _meta": {&mcp.ImageContent{Type: "image", Data: "AA==", MIMEType: "image/png", Meta: meta()}},
		"audio item _meta":    {mcp.AudioContent{Type: "audio", Data: "AA==", MIMEType: "audio/wav", Meta: meta()}},
		"audio pointer _meta": {&mcp.AudioContent{Type: "audio", Data: "AA==", MIMEType: "audio/wav", Meta: meta()}},
		"link pointer _meta":  {&mcp.ResourceLink{Type: "resource_link", URI: "file:///a", Name: "a", Meta: meta()}},
		"embedded pointer _meta": {&mcp.EmbeddedResource{Type: "resource", Meta: meta(),
			Resource: mcp.TextResourceContents{URI: "file:///a"}}},
		"embedded pointer's resource _meta": {&mcp.EmbeddedResource{Type: "resource",
			Resource: mcp.TextResourceContents{URI: "file:///a", Meta: map[string]any{"x": panicky{}}}}},
		"text resource pointer _meta": {mcp.NewEmbeddedResource(
			&mcp.TextResourceContents{URI: "file:///a", Meta: map[string]any{"x": panicky{}}})},
		"blob resource _meta": {mcp.NewEmbeddedResource(
			mcp.BlobResourceContents{URI: "file:///b", Blob: "AA==", Meta: map[string]any{"x": failing{}}})},
		"blob resource pointer _meta": {mcp.NewEmbeddedResource(
			&mcp.BlobResourceContents{URI: "file:///b", Blob: "AA==", Meta: map[string]any{"x": panicky{}}})},
		"resource of the handler's type": {mcp.NewEmbeddedResource(panickyResource{})},
		"audio pointer annotation -Inf": {&mcp.AudioContent{Type: "audio", Data: "AA==", MIMEType: "audio/wav",
			Annotated: mcp.Annotated{Annotations: &mcp.Annotations{Priority: ptr(math.Inf(-1))}}}},
		"embedded annotation Inf": {&mcp.EmbeddedResource{Type: "resource", Resource: mcp.TextResourceContents{URI: "file:///a"},
			Annotated: mcp.Annotated{Annotations: &mcp.Annotations{Priority: ptr(math.Inf(1))}}}},
		"item after a failing one": {&mcp.TextContent{Type: "text", Text: "a", Meta: metaWith(failing{})},
			mcp.TextContent{Type: "text", Text: "b", Meta: meta()}},
	}
	for name, content := range res {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			logs := middlewaretest.NewLog(t)
			srv := middlewaretest.New(t, shopTool, returning(&mcp.CallToolResult{Content: content}),
				mcprecover.Middleware(mcprecover.WithLogger(logs.Logger())))
			r := srv.Call(nil)
			expect(t, r, envelope.InternalError)
			r.NoLeak(dsn, "s3cr3t")
			logs.ExpectIncident(r)
		})
	}
}

// Results recover has to look at but not change go out as bare mcp-go
// sends them: input requests (mcp-go's own types, encoded once to check
// them), an empty RawStructuredContent (which mcp-go ignores
// for structuredContent) and mcpguard's own envelope beside a value to
// encode.
func TestResultsCheckedButNotChangedGoOutAsTheBareSDKSendsThem(t *testing.T) {
	t.Parallel()
	cases := map[string]func() *mcp.CallToolResult{
		"input request": func() *mcp.CallToolResult {
			r := mcp.NewToolResultText("need roots")
			r.InputRequests = mcp.InputRequests{"roots": mcp.NewRootsInputRequest()}
			return r
		},
		"empty RawStructuredContent": func() *mcp.CallToolResult {
			r := mcp.NewToolResultStructured(product{ID: "P-1"}, "P-1")
			r.RawStructuredContent = json.RawMessage{}
			return r
		},
		"envelope with a value to encode": func() *mcp.CallToolResult {
			r := mcp.NewToolResultText("ok")
			r.StructuredContent = &envelope.Envelope{Success: false, ErrorType: envelope.NotFound, Message: "no such product"}
			r.Meta = metaWith(stamp{})
			return r
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bare := middlewaretest.New(t, shopTool, returning(build())).Call(nil)
			guarded := middlewaretest.New(t, shopTool, returning(build()), mcprecover.Middleware()).Call(nil)
			assert.False(t, guarded.IsError())
			assert.Equal(t, string(bare.Raw), string(guarded.Raw), "byte for byte")
		})
	}
}

// A result with one value to encode costs that value's encoding and one
// copy of the result, nothing more: positions that hold nothing to check
// (no input requests here) are skipped, not encoded.
func TestAValueToEncodeCostsItsEncodingAndOneCopy(t *testing.T) {
	res := mcp.NewToolResultText("ok")
	res.StructuredContent = stamp{}
	h := mcprecover.Middleware()(returning(res))
	ctx := context.Background()
	got, err := h(ctx, mcp.CallToolRequest{})
	require.NoError(t, err)
	require.NotSame(t, res, got)
	require.JSONEq(t, `"2026-12-01"`, string(got.RawStructuredContent))
	if raceEnabled {
		t.Skip("the race detector makes encoding/json's allocations vary")
	}
	var v any = stamp{}
	encoding := testing.AllocsPerRun(1000, func() { _, _ = json.Marshal(v) })
	assert.Equal(t, encoding+1, testing.AllocsPerRun(1000, func() { _, _ = h(ctx, mcp.CallToolRequest{}) }))
}

func ptr[T any](v T) *T { return &v }

// Nil items, which mcp-go encodes as null (the harness refuses such a
// response, so this compares what mcp-go would send), pass through as they
// are: recover neither fails on them nor copies the result.
func TestNilItemsPassThrough(t *testing.T) {
	res := &mcp.CallToolResult{Content: []mcp.Content{nil, (*mcp.TextContent)(nil), (*mcp.ImageContent)(nil),
		(*mcp.AudioContent)(nil), (*mcp.ResourceLink)(nil), (*mcp.EmbeddedResource)(nil),
		mcp.NewEmbeddedResource(nil), mcp.NewEmbeddedResource((*mcp.TextResourceContents)(nil)),
		mcp.NewEmbeddedResource((*mcp.BlobResourceContents)(nil))}}
	want, err := json.Marshal(res)
	require.NoError(t, err)
	got, err := mcprecover.Middleware()(returning(res))(context.Background(), mcp.CallToolRequest{})
	require.NoError(t, err)
	assert.Same(t, res, got)
	sent, err := json.Marshal(got)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(sent))
}
