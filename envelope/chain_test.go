package envelope_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

func TestLayersRefuseANilChain(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() { envelope.Layer(nil) })
	assert.Panics(t, func() { envelope.NewRenderer().Layer(nil) })
}

// renderingOutside is a layer outside the envelope layer that passes the
// first call on (the envelope layer registers its renderer) and answers
// every other itself, as the repeated-failure guard does, with the
// renderer RendererOutside gives it.
func renderingOutside(got **envelope.Renderer) server.ToolHandlerMiddleware {
	calls := 0
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if calls++; calls == 1 {
				return next(ctx, req)
			}
			*got = envelope.RendererOutside(ctx, nil)
			return (*got).Error(ctx, req, errTaken), nil
		}
	}
}

// A layer outside the envelope layer gets the chain's renderer, final:
// its configuration applies, and its answer for a tool with an output
// schema has no envelope in structuredContent, which nothing would take
// out.
func TestRendererOutsideIsTheChainsFinalRenderer(t *testing.T) {
	t.Parallel()
	const step = "Pick another name."
	tool := mcp.NewTool("shop_rename", mcp.WithOutputSchema[struct {
		Name string `json:"name"`
	}]())
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultStructuredOnly(map[string]any{"name": "x"}), nil
	}
	r := envelope.NewRenderer(envelope.WithMapping(errTaken, envelope.ValidationError), envelope.WithDefaultNextSteps(envelope.ValidationError, step))
	var got *envelope.Renderer
	srv := middlewaretest.New(t, tool, ok, renderingOutside(&got), r.Middleware())
	srv.Call(nil).ExpectSuccess()
	res := srv.Call(nil).ExpectError(envelope.ValidationError)
	assert.Same(t, r, got)
	assert.Contains(t, res.Envelope.NextSteps, step)
	assert.Empty(t, res.StructuredContent(), "the output schema admits no envelope: %s", res.Raw)

	assert.NotNil(t, envelope.RendererOutside(context.Background(), nil), "the default renderer outside a server")
	assert.Same(t, r, envelope.RendererOutside(context.Background(), r))
}

// Normalize is the envelope layer's rendering of one result, as core/chain's
// Render stage runs it.
func TestNormalizeIsTheEnvelopeLayersRendering(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var req mcp.CallToolRequest
	req.Params.Name = "shop_get"
	r := envelope.NewRenderer()

	ok := mcp.NewToolResultText("found")
	ok.Meta = &mcp.Meta{AdditionalFields: map[string]any{envelope.ToolFailureMetaKey: map[string]any{"retryable": true}, "kept": 1}}
	out := r.Normalize(ctx, req, ok)
	require.False(t, out.IsError)
	assert.NotContains(t, out.Meta.AdditionalFields, envelope.ToolFailureMetaKey, "a success keeps no toolFailure of its own")
	assert.Equal(t, 1, out.Meta.AdditionalFields["kept"])

	env, isEnv := envelope.FromResult(r.Normalize(ctx, req, mcp.NewToolResultError("product not found")))
	require.True(t, isEnv)
	assert.Equal(t, envelope.NotFound, env.ErrorType)

	env, isEnv = envelope.FromResult(r.Normalize(ctx, req, nil))
	require.True(t, isEnv, "a nil result is the handler's failure")
	assert.Equal(t, envelope.InternalError, env.ErrorType)

	plain := envelope.NewRenderer(envelope.WithoutNormalization()).Normalize(ctx, req, mcp.NewToolResultError("product not found"))
	require.True(t, plain.IsError)
	_, isEnv = envelope.FromResult(plain)
	assert.False(t, isEnv, "WithoutNormalization keeps a handler's error result as it is")
}
