package limit_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// slow is a rate at which no token comes back during a test.
const slow = rate.Limit(1.0 / 3600)

func TestRateRefusesWithAnEnvelopeThatSaysHowLongToWait(t *testing.T) {
	t.Parallel()
	for name, withDefault := range map[string]bool{"alone": false, "inside Default": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int64
			chain := []server.ToolHandlerMiddleware{limit.Rate(slow, 2)}
			if withDefault {
				chain = append(middleware.Default(), chain...)
			}
			srv := middlewaretest.New(t, tool, counting(&calls), chain...)
			srv.Call(nil).ExpectSuccess()
			srv.Call(nil).ExpectSuccess()
			r := srv.Call(nil).ExpectError(envelope.ExecutionFailed).ExpectNextStep("Wait").ExpectMessage("Rate limit reached").NoLeak()
			require.NotNil(t, r.Envelope)
			assert.True(t, r.Envelope.Retryable)
			// One token per hour: the next one is about an hour away.
			assert.InDelta(t, time.Hour.Milliseconds(), r.Envelope.RetryAfterMS, float64(time.Minute.Milliseconds()))
			assert.Contains(t, r.Envelope.NextSteps[0], fmt.Sprintf("Wait %d ms", r.Envelope.RetryAfterMS))
			assert.Contains(t, string(r.Raw), `\"retry_after_ms\":`)
			assert.EqualValues(t, 2, calls.Load(), "a refused call never reaches the handler")
		})
	}
}

func TestRateKeysBucketsApart(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	srv := middlewaretest.New(t, tool, counting(&calls), limit.Rate(slow, 1, limit.WithKey(byArgument)))
	srv.Call(map[string]any{"key": "alice"}).ExpectSuccess()
	srv.Call(map[string]any{"key": "bob"}).ExpectSuccess()
	srv.Call(map[string]any{"key": "alice"}).ExpectError(envelope.ExecutionFailed)
	srv.Call(map[string]any{"key": "bob"}).ExpectError(envelope.ExecutionFailed)
}

func TestRatePerTool(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	for name, perTool := range map[string]bool{"shared": false, "per tool": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			opts := []limit.Option{}
			if perTool {
				opts = append(opts, limit.WithPerTool())
			}
			srv := middlewaretest.New(t, tool, counting(&calls), limit.Rate(slow, 1, opts...))
			srv.MCPServer().AddTool(mcp.NewTool("shop_report"), counting(&calls))
			srv.Call(nil).ExpectSuccess()
			other := srv.CallTool("shop_report", nil)
			if perTool {
				other.ExpectSuccess()
			} else {
				other.ExpectError(envelope.ExecutionFailed)
			}
			srv.Call(nil).ExpectError(envelope.ExecutionFailed)
		})
	}
}

func TestRateGivesTokensBack(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	srv := middlewaretest.New(t, tool, counting(&calls), limit.Rate(1000, 1))
	// At 1000/s a refusal asks for a wait of about a millisecond; after
	// waiting what it says, the call goes through.
	for i := 0; i < 20; i++ {
		r := srv.Call(nil)
		if r.IsError() {
			require.NotNil(t, r.Envelope)
			require.LessOrEqual(t, r.Envelope.RetryAfterMS, int64(2))
			time.Sleep(time.Duration(r.Envelope.RetryAfterMS) * time.Millisecond)
			srv.Call(nil).ExpectSuccess()
			return
		}
	}
}

func TestRateBoundsItsKeys(t *testing.T) {
	t.Parallel()
	// 16 buckets at most (one per shard); every other key shares one
	// overflow bucket of one token. Without the bound all 200 would pass.
	var calls atomic.Int64
	srv := middlewaretest.New(t, tool, counting(&calls), limit.Rate(slow, 1, limit.WithKey(byArgument), limit.WithMaxKeys(16)))
	for i := range 200 {
		srv.Call(map[string]any{"key": fmt.Sprintf("k%d", i)})
	}
	assert.LessOrEqual(t, calls.Load(), int64(17))
	assert.GreaterOrEqual(t, calls.Load(), int64(2))
}

func TestDefaultKey(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("t", "0")
	var req mcp.CallToolRequest
	ctx := context.Background()
	assert.Empty(t, limit.DefaultKey(ctx, req), "no principal, no address: the global bucket")

	sctx := s.WithContext(ctx, server.NewInProcessSession("mcp-session-1", nil))
	assert.Empty(t, limit.DefaultKey(sctx, req), "a session, which a client can mint, is no key")

	actx := limit.ContextWithRemoteAddr(sctx, "192.0.2.7:5123")
	assert.Equal(t, "192.0.2.7", limit.RemoteAddrFromContext(actx))
	akey := limit.DefaultKey(actx, req)
	assert.True(t, strings.HasSuffix(akey, "192.0.2.7"), akey)
	assert.Equal(t, akey, limit.DefaultKey(limit.ContextWithRemoteAddr(ctx, "192.0.2.7:6000"), req), "a new port is not a new caller")

	pctx := limit.ContextWithPrincipal(actx, "alice")
	assert.Equal(t, "alice", limit.PrincipalFromContext(pctx))
	key := limit.DefaultKey(pctx, req)
	assert.True(t, strings.HasSuffix(key, "alice"), "the principal wins over the address")
	assert.NotEqual(t, limit.DefaultKey(limit.ContextWithRemoteAddr(ctx, "alice"), req), key,
		"an address cannot be named like a principal to share its bucket")
	assert.Equal(t, sctx, limit.ContextWithPrincipal(sctx, ""))
	assert.Equal(t, sctx, limit.ContextWithRemoteAddr(sctx, ""))
}

func TestRemoteAddrIsWhatOneClientCannotMultiply(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"192.0.2.1:5123":                 "192.0.2.1",
		"192.0.2.1":                      "192.0.2.1",
		"[::ffff:192.0.2.1]:80":          "192.0.2.1",
		"[2001:db8:1:2:3:4:5:6]:443":     "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1%eth0]:22": "2001:db8:1:2::/64",
		"2001:db8:1:2::9":                "2001:db8:1:2::/64",
		"@":                              "@",
	} {
		assert.Equal(t, want, limit.RemoteAddrFromContext(limit.ContextWithRemoteAddr(context.Background(), in)), in)
	}
	assert.Empty(t, limit.RemoteAddrFromContext(context.Background()))
}

func TestInvalidRateConfigurationPanics(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() { limit.Rate(0, 1) })
	assert.Panics(t, func() { limit.Rate(-1, 1) })
	assert.Panics(t, func() { limit.Rate(1, 0) })
	assert.Panics(t, func() { limit.WithMaxKeys(0) })
	assert.Panics(t, func() { limit.WithKey(nil) })
	assert.NotPanics(t, func() { limit.Rate(rate.Inf, 1) })
}
