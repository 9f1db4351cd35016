package redact_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/redact"
)

// hostileResult puts a different secret in every position a tool result
// can carry text.
func hostileResult() (*mcp.CallToolResult, []string) {
	secrets := []string{"s-text", "s-ptrtext", "s-linkuri", "s-linkname", "s-linkdesc", "s-embtext", "s-embptr", "s-resuri",
		"s-blobarg", "s-meta", "s-itemmeta", "s-structured", "s-raw"}
	pw := func(s string) string { return "password=" + s }
	res := &mcp.CallToolResult{
		Result: mcp.Result{Meta: &mcp.Meta{AdditionalFields: map[string]any{"debug": pw("s-meta")}}},
		Content: []mcp.Content{
			mcp.TextContent{Type: "text", Text: pw("s-text"), Meta: &mcp.Meta{AdditionalFields: map[string]any{"client_secret": "s-itemmeta"}}},
			&mcp.TextContent{Type: "text", Text: pw("s-ptrtext")},
			mcp.ResourceLink{Type: "resource_link", URI: "https://u:s-linkuri@h/x", Name: pw("s-linkname"), Description: pw("s-linkdesc")},
			mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "mem://x?token=s-resuri", Text: pw("s-embtext")}),
			&mcp.EmbeddedResource{Type: "resource", Resource: &mcp.TextResourceContents{URI: "mem://y", Text: pw("s-embptr")}},
			mcp.NewEmbeddedResource(mcp.BlobResourceContents{URI: "mem://z?api_key=s-blobarg", Blob: "aGk="}),
			mcp.NewImageContent("/9j/4AAQSkZJRg==", "image/jpeg"),
		},
		StructuredContent: map[string]any{"detail": pw("s-structured")},
		IsError:           true,
	}
	return res, secrets
}

func TestResultRedactsEveryPositionOnTheWire(t *testing.T) {
	t.Parallel()
	res, secrets := hostileResult()
	before, err := json.Marshal(res)
	require.NoError(t, err)
	srv := middlewaretest.New(t, mcp.NewTool("t"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return res, nil
	}, redact.Middleware())
	r := srv.Call(nil)
	assert.Empty(t, middlewaretest.Leaks(r.Raw, secrets...), "%s", r.Raw)
	assert.Contains(t, string(r.Raw), "/9j/4AAQSkZJRg==", "binary data is left alone")
	after, _ := json.Marshal(res)
	assert.JSONEq(t, string(before), string(after), "the handler's result is never modified")

	// mcp-go sends RawStructuredContent in preference to StructuredContent.
	raw := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent("x")},
		StructuredContent: map[string]any{"a": "clean"}, RawStructuredContent: json.RawMessage(`{"dsn":"mysql://u:s-rawpw@h/db","n":1.50}`)}
	srv = middlewaretest.New(t, mcp.NewTool("t"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return raw, nil
	}, redact.Middleware())
	r = srv.Call(nil)
	assert.Empty(t, middlewaretest.Leaks(r.Raw, "s-rawpw"))
	assert.Contains(t, string(r.Raw), `"n":1.50`, "numbers keep their text")
}

func TestUnknownContentKindsAreRedactedAsJSON(t *testing.T) {
	t.Parallel()
	res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
		mcp.ToolResultContent{Type: "tool_result", ToolUseID: "1", Content: []mcp.Content{mcp.NewTextContent("token=s-nested")}},
	}}
	b, err := json.Marshal(redact.Result(redact.Default(), res))
	require.NoError(t, err)
	assert.NotContains(t, string(b), "s-nested")
	assert.Contains(t, string(b), `"toolUseId":"1"`)
}

func TestCleanResultCostsNoAllocation(t *testing.T) {
	res := &mcp.CallToolResult{
		Result: mcp.Result{Meta: &mcp.Meta{AdditionalFields: map[string]any{"trace": "Abc", "n": 1.0}}},
		Content: []mcp.Content{
			mcp.NewTextContent(`{"error_type":"not_found","message":"No order ORD-1 exists.","next_steps":["List orders first."]}`),
			&mcp.TextContent{Type: "text", Text: "Order ORD-1 was not found"},
			mcp.ResourceLink{Type: "resource_link", URI: "orders://ORD-1", Name: "Order"},
			mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "orders://ORD-1", Text: "Details"}),
			&mcp.EmbeddedResource{Type: "resource", Resource: &mcp.TextResourceContents{URI: "orders://ORD-2", Text: "More"}},
			mcp.NewImageContent("aGk=", "image/png"),
		},
		StructuredContent: map[string]any{"error_type": "not_found", "next_steps": []any{"List orders first."}},
		IsError:           true,
	}
	r := redact.Default()
	require.Same(t, res, redact.Result(r, res))
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	assert.Zero(t, testing.AllocsPerRun(200, func() { _ = redact.Result(r, res) }))
}

func TestMiddlewareKeepsWhatTheAgentSent(t *testing.T) {
	t.Parallel()
	tool := mcp.NewTool("read_file", mcp.WithString("path"), mcp.WithString("api_key"))
	srv := middlewaretest.New(t, tool, func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		p := req.GetString("path", "")
		return mcp.NewToolResultError("open " + p + ": not found (tried /srv/shop/data" + p + ", key " + req.GetString("api_key", "") + ")"), nil
	}, redact.Middleware())
	r := srv.Call(map[string]any{"path": "/home/alice/notes/todo.md", "api_key": "/home/alice/k"})
	text := r.CallResult.Content[0].(mcp.TextContent).Text
	assert.Contains(t, text, "open /home/alice/notes/todo.md: not found", "the path the agent sent survives")
	assert.NotContains(t, text, "/srv/shop", "a path it never sent does not")
	assert.NotContains(t, text, "/home/alice/k", "a secret-named argument is never kept")

	r = srv.Call(map[string]any{"path": "/api/v1/users/42?token=ghp_16C7e42F292c6912E7710c838347Ae178B4a"})
	assert.NotContains(t, string(r.Raw), "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "secrets stay redacted when sent")

	d := redact.Default()
	assert.Same(t, d, d.ForCall(nil), "no arguments, no cost")
}

func TestWithoutRulesOnTheWire(t *testing.T) {
	t.Parallel()
	in := `open /srv/shop/x.db with password=hunter2`
	s := middlewaretest.New(t, mcp.NewTool("t"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError(in), nil
	}, redact.Middleware(redact.WithoutRules("paths")))
	assert.Equal(t, `open /srv/shop/x.db with password=[REDACTED]`, s.Call(nil).CallResult.Content[0].(mcp.TextContent).Text)
}

// Every content kind, by value or by pointer, nil pointers included, is
// redacted where it carries text and otherwise sent as it was.
func TestResultContentKinds(t *testing.T) {
	t.Parallel()
	meta := &mcp.Meta{AdditionalFields: map[string]any{"password": "s-meta"}}
	clean := &mcp.Meta{AdditionalFields: map[string]any{"n": 1.0}}
	res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
		mcp.ImageContent{Type: "image", Data: "aGk=", MIMEType: "image/png", Meta: meta},
		&mcp.ImageContent{Type: "image", Data: "aGk=", MIMEType: "image/png", Meta: meta},
		mcp.AudioContent{Type: "audio", Data: "aGk=", MIMEType: "audio/wav", Meta: meta},
		&mcp.AudioContent{Type: "audio", Data: "aGk=", MIMEType: "audio/wav", Meta: meta},
		&mcp.ResourceLink{Type: "resource_link", URI: "mem://x", Name: "token=s-ptrlink"},
		&mcp.EmbeddedResource{Type: "resource", Resource: &mcp.BlobResourceContents{URI: "mem://b?token=s-blobptr", Blob: "aGk="}},
		mcp.EmbeddedResource{Type: "resource", Meta: meta, Resource: mcp.TextResourceContents{URI: "mem://t", Text: "clean"}},
		mcp.EmbeddedResource{Type: "resource", Resource: mcp.TextResourceContents{URI: "mem://t", Text: "clean", Meta: map[string]any{"secret": map[string]any{"a": "s-resmeta"}}}},
	}}
	b, err := json.Marshal(redact.Result(redact.Default(), res))
	require.NoError(t, err)
	assert.Empty(t, middlewaretest.Leaks(b, "s-meta", "s-ptrlink", "s-blobptr", "s-resmeta"), "%s", b)
	assert.Equal(t, 5, strings.Count(string(b), "aGk="), "binary data is left alone: %s", b)

	untouched := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
		(*mcp.TextContent)(nil), (*mcp.ImageContent)(nil), (*mcp.AudioContent)(nil), (*mcp.ResourceLink)(nil), (*mcp.EmbeddedResource)(nil),
		mcp.EmbeddedResource{Type: "resource", Resource: (*mcp.TextResourceContents)(nil)},
		mcp.EmbeddedResource{Type: "resource", Resource: (*mcp.BlobResourceContents)(nil)},
		mcp.AudioContent{Type: "audio", Data: "aGk=", Meta: clean},
		mcp.EmbeddedResource{Type: "resource", Resource: mcp.BlobResourceContents{URI: "mem://b", Blob: "aGk="}},
	}}
	assert.Same(t, untouched, redact.Result(redact.Default(), untouched))
	assert.Nil(t, redact.Result(redact.Default(), nil))
}

// unencodable is a content kind whose JSON encoding fails: it is sent as
// it is, as mcp-go would fail it.
type unencodable struct{ mcp.TextContent }

func (unencodable) MarshalJSON() ([]byte, error) { return nil, errors.New("no") }

// scalar is a content kind that encodes as a JSON string.
type scalar struct {
	mcp.TextContent
	s string
}

func (c scalar) MarshalJSON() ([]byte, error) { return json.Marshal(c.s) }

func TestUnknownContentKindsThatAreNotObjects(t *testing.T) {
	t.Parallel()
	u := unencodable{}
	res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{u, scalar{s: "clean"}}}
	assert.Same(t, res, redact.Result(redact.Default(), res))

	res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{scalar{s: "open /srv/x/y"}, scalar{s: "password=\"x"}}}
	b, err := json.Marshal(redact.Result(redact.Default(), res))
	require.NoError(t, err)
	assert.NotContains(t, string(b), "/srv/x")
	assert.True(t, json.Valid(b), "%s", b)
}
