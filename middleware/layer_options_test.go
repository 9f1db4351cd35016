package middleware_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/validate"
)

// A limit's own envelope options add to the chain's configuration, and
// what the layer renders reaches the client as it rendered it: on a tool
// with an output schema, a refusal rendered with options of its own was
// re-read by the envelope layer as an untrusted envelope, and lost its
// retryable, its retry_after_ms, its wait step and the layer's
// WithToolFailureMeta.
func TestLayerEnvelopeOptionsAddToTheChains(t *testing.T) {
	t.Parallel()
	const chainStep = "Ask the operator for a larger budget."
	log := middlewaretest.NewLog(t)
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultStructured(map[string]any{"n": 1}, "ok"), nil
	}
	tool := mcp.NewTool("shop_search", mcp.WithOutputSchema[struct {
		N int `json:"n"`
	}]())
	chain := middleware.Default(
		middleware.WithLogger(log.Logger()),
		middleware.WithEnvelopeOptions(envelope.WithDefaultNextSteps(envelope.ExecutionFailed, chainStep)),
		middleware.WithLimits(limit.Rate(rate.Every(1e12), 1,
			limit.WithEnvelopeOptions(envelope.WithToolFailureMeta()))),
	)
	srv := middlewaretest.New(t, tool, ok, chain...)
	srv.Call(nil).ExpectSuccess()
	r := srv.Call(nil).ExpectError(envelope.ExecutionFailed)
	assert.True(t, r.Envelope.Retryable, "the refusal's own retryable: %s", r.Raw)
	assert.Positive(t, r.Envelope.RetryAfterMS, "the refusal's own retry_after_ms: %s", r.Raw)
	require.NotEmpty(t, r.Envelope.NextSteps)
	assert.Equal(t, r.Envelope.NextSteps[0][:5], "Wait ", "the refusal's own step: %s", r.Raw)
	assert.NotContains(t, r.Envelope.NextSteps, chainStep, "a refusal replaces the code's default steps: %s", r.Raw)
	require.NotNil(t, r.CallResult.Meta, "the layer's WithToolFailureMeta: %s", r.Raw)
	failure, found := r.CallResult.Meta.AdditionalFields[envelope.ToolFailureMetaKey].(map[string]any)
	require.True(t, found, "the layer's WithToolFailureMeta: %s", r.Raw)
	assert.Equal(t, true, failure["retryable"])
}

// validate's own envelope options add to the chain's the same way: a
// validation failure keeps the chain's default next steps for
// validation_error, and the layer's logger receives what it logs.
func TestValidateEnvelopeOptionsAddToTheChains(t *testing.T) {
	t.Parallel()
	const chainStep = "Read the tool's input schema in tools/list."
	type args struct {
		Limit int `json:"limit" validate:"min=1,max=50"`
	}
	h := validate.Handler(func(context.Context, mcp.CallToolRequest, args) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}, validate.WithEnvelopeOptions(envelope.WithLogger(slog.New(slog.DiscardHandler))))
	srv := middlewaretest.New(t, mcp.NewTool("shop_search", validate.InputSchema[args]()), h,
		middleware.Default(middleware.WithEnvelopeOptions(envelope.WithDefaultNextSteps(envelope.ValidationError, chainStep)))...)
	r := srv.Call(map[string]any{"limit": 500}).ExpectError(envelope.ValidationError)
	assert.Contains(t, r.Envelope.NextSteps, chainStep, string(r.Raw))
}
