package envelope_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

var errTaken = errors.New("name taken")

// renderingInside is a layer inside the envelope layer that answers every
// call itself, with the chain's renderer plus overlay.
func renderingInside(overlay *envelope.Overlay) server.ToolHandlerMiddleware {
	return func(server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return envelope.RendererFrom(ctx, nil).Over(overlay).Error(ctx, req, errTaken), nil
		}
	}
}

func failureMeta(t *testing.T, r *middlewaretest.Result) (map[string]any, bool) {
	t.Helper()
	if r.CallResult.Meta == nil {
		return nil, false
	}
	f, ok := r.CallResult.Meta.AdditionalFields[envelope.ToolFailureMetaKey].(map[string]any)
	return f, ok
}

// A layer's overlay adds to the envelope layer's configuration: its
// mapping and its tool failure _meta reach the client, beside the chain's
// default next steps; the chain's own _meta, when it has one, is the one
// sent.
func TestOverlayAddsToTheEnvelopeLayers(t *testing.T) {
	t.Parallel()
	const step = "Pick another name."
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	overlay := envelope.NewOverlay(envelope.WithMapping(errTaken, envelope.ValidationError), envelope.WithToolFailureMeta())
	chain := envelope.Middleware(envelope.WithDefaultNextSteps(envelope.ValidationError, step))
	r := middlewaretest.New(t, mcp.NewTool("shop_rename"), ok, chain, renderingInside(overlay)).
		Call(nil).ExpectError(envelope.ValidationError).NoLeak()
	assert.Contains(t, r.Envelope.NextSteps, step, "the chain's steps: %s", r.Raw)
	failure, found := failureMeta(t, r)
	require.True(t, found, "the layer's tool failure _meta: %s", r.Raw)
	assert.Equal(t, "validation_error", failure["code"])

	both := envelope.Middleware(envelope.WithToolFailureMeta())
	r = middlewaretest.New(t, mcp.NewTool("shop_rename"), ok, both, renderingInside(overlay)).
		Call(nil).ExpectError(envelope.ValidationError)
	failure, found = failureMeta(t, r)
	require.True(t, found, "one _meta: %s", r.Raw)
	assert.Equal(t, "validation_error", failure["code"])

	plain := middlewaretest.New(t, mcp.NewTool("shop_rename"), ok, envelope.Middleware(), renderingInside(nil)).
		Call(nil).ExpectError(envelope.InternalError)
	_, found = failureMeta(t, plain)
	assert.False(t, found, "no option asked for it: %s", plain.Raw)
}

func TestOverAndWithWithoutOptionsAreTheRendererItself(t *testing.T) {
	t.Parallel()
	r := envelope.NewRenderer()
	assert.Same(t, r, r.Over(nil))
	assert.Same(t, r, r.With())
	assert.NotSame(t, r, r.With(envelope.WithToolFailureMeta()))
	assert.NotSame(t, r, r.Over(envelope.NewOverlay(envelope.WithToolFailureMeta())))
}

// A layer inside that re-renders the handler's error result with its own
// tool failure _meta: the client gets that _meta beside the handler's
// own _meta members, which the envelope layer outside keeps.
func TestALayersFailureMetaKeepsTheHandlersMeta(t *testing.T) {
	t.Parallel()
	failing := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := mcp.NewToolResultError("name taken")
		res.Meta = &mcp.Meta{AdditionalFields: map[string]any{"trace": "t-1"}}
		return res, nil
	}
	overlay := envelope.NewOverlay(envelope.WithToolFailureMeta())
	normalizing := func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, _ := next(ctx, req)
			return envelope.RendererFrom(ctx, nil).Over(overlay).Normalize(ctx, req, res), nil
		}
	}
	r := middlewaretest.New(t, mcp.NewTool("shop_rename"), failing, envelope.Middleware(), normalizing).
		Call(nil).ExpectError(envelope.ExecutionFailed)
	_, found := failureMeta(t, r)
	require.True(t, found, "the layer's tool failure _meta: %s", r.Raw)
	assert.Equal(t, "t-1", r.CallResult.Meta.AdditionalFields["trace"], "the handler's own _meta: %s", r.Raw)
}

// A handler that returns a result and an error failed: the client gets
// the error's envelope, never the result as a success.
func TestAResultBesideAnErrorIsTheError(t *testing.T) {
	t.Parallel()
	both := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("half done"), errTaken
	}
	r := middlewaretest.New(t, mcp.NewTool("shop_rename"), both, envelope.Middleware(envelope.WithMapping(errTaken, envelope.ValidationError))).
		Call(nil).ExpectError(envelope.ValidationError)
	assert.NotContains(t, string(r.Raw), "half done")
}
