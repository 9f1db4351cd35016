package limit_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// A layer that answers by itself (a refusal, a timeout) renders with the
// envelope options it is given, as the envelope layer would: with
// envelope.WithToolFailureMeta the answer repeats the envelope under
// _meta, retryable as the envelope says; without it, it does not.
func TestWithEnvelopeOptionsShapesTheLayersOwnAnswers(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	for name, c := range map[string]struct {
		layer func(...limit.Option) server.ToolHandlerMiddleware
		h     server.ToolHandlerFunc
		calls int // calls that succeed before the one answered by the layer
	}{
		"refused":   {func(o ...limit.Option) server.ToolHandlerMiddleware { return limit.Rate(slow, 1, o...) }, counting(&calls), 1},
		"timed out": {func(o ...limit.Option) server.ToolHandlerMiddleware { return limit.Timeout(time.Millisecond, o...) }, stuck(t), 0},
	} {
		answer := func(opts ...limit.Option) *middlewaretest.Result {
			srv := middlewaretest.New(t, tool, c.h, c.layer(opts...))
			for range c.calls {
				srv.Call(nil).ExpectSuccess()
			}
			return srv.Call(nil).ExpectError(envelope.ExecutionFailed).NoLeak()
		}

		r := answer(limit.WithEnvelopeOptions(envelope.WithToolFailureMeta()))
		require.NotNil(t, r.CallResult.Meta, name)
		failure, ok := r.CallResult.Meta.AdditionalFields[envelope.ToolFailureMetaKey].(map[string]any)
		require.True(t, ok, "%s: %s", name, r.Raw)
		assert.Equal(t, true, failure["retryable"], name)

		plain := answer()
		if plain.CallResult.Meta != nil {
			assert.NotContains(t, plain.CallResult.Meta.AdditionalFields, envelope.ToolFailureMetaKey, name)
		}
	}
}
