package envelope_test

import (
	"errors"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/envelope"
)

func TestRetryAfterReachesTheWireInWholeMilliseconds(t *testing.T) {
	t.Parallel()
	refused := envelope.SetRetryable(envelope.New(envelope.ExecutionFailed, "rate limit reached"), true)
	for _, tc := range []struct {
		name string
		d    time.Duration
		want int64
	}{
		{"rounded up", 1500 * time.Microsecond, 2},
		{"exact", 250 * time.Millisecond, 250},
		{"below a millisecond is still a wait", time.Nanosecond, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := expect(t, serve(t, failing(envelope.SetRetryAfter(refused, tc.d))).Call(nil), envelope.ExecutionFailed)
			assert.Equal(t, tc.want, env.RetryAfterMS)
			assert.True(t, env.Retryable)
			assert.Equal(t, envelope.ExecutionFailed, env.ErrorType)
		})
	}
	t.Run("absent unless set", func(t *testing.T) {
		t.Parallel()
		res := serve(t, failing(refused)).Call(nil)
		assert.NotContains(t, string(res.Raw), "retry_after_ms")
		assert.NoError(t, envelope.SetRetryAfter(nil, time.Second))
		plain := errors.New("x")
		assert.Same(t, plain, envelope.SetRetryAfter(plain, 0))
	})
	t.Run("survives normalization by an outer envelope layer", func(t *testing.T) {
		t.Parallel()
		var req mcp.CallToolRequest
		req.Params.Name = "shop_tool"
		inner := envelope.ErrorResult(t.Context(), req, envelope.SetRetryAfter(refused, time.Second))
		env := expect(t, serve(t, returning(inner)).Call(nil), envelope.ExecutionFailed)
		assert.Equal(t, int64(1000), env.RetryAfterMS)
		assert.Contains(t, env.Message, "rate limit")
	})
}
