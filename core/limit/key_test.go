package limit_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
)

// The key of a call: its principal, else its address (no port, IPv6 as
// its /64), else "" for the one shared bucket; empty names leave the
// context as it is, and principals and addresses never share a key.
func TestKeyPrefersThePrincipalThenTheAddress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	assert.Equal(t, ctx, limit.ContextWithPrincipal(ctx, ""), "an empty principal leaves the context")
	assert.Equal(t, ctx, limit.ContextWithRemoteAddr(ctx, ""), "an empty address leaves the context")
	assert.Empty(t, limit.Key(ctx))
	assert.Empty(t, limit.PrincipalFromContext(ctx))
	assert.Empty(t, limit.RemoteAddrFromContext(ctx))

	actx := limit.ContextWithRemoteAddr(ctx, "[2001:db8::1]:443")
	assert.Equal(t, "2001:db8::/64", limit.RemoteAddrFromContext(actx))
	assert.Equal(t, limit.Key(actx), limit.Key(limit.ContextWithRemoteAddr(ctx, "[2001:db8::ffff]:9")), "one /64, one key")
	assert.Equal(t, "192.0.2.7", limit.RemoteAddrFromContext(limit.ContextWithRemoteAddr(ctx, "192.0.2.7:5123")))
	assert.Equal(t, "unix-socket", limit.RemoteAddrFromContext(limit.ContextWithRemoteAddr(ctx, "unix-socket")), "anything else is kept")

	pctx := limit.ContextWithPrincipal(actx, "alice")
	assert.Equal(t, "alice", limit.PrincipalFromContext(pctx))
	assert.Equal(t, limit.PrincipalKey("alice"), limit.Key(pctx), "the principal wins")
	assert.Empty(t, limit.PrincipalKey(""))
	assert.NotEqual(t, limit.Key(limit.ContextWithPrincipal(ctx, "192.0.2.7")),
		limit.Key(limit.ContextWithRemoteAddr(ctx, "192.0.2.7")), "a principal named like an address is another key")

	// The repeated-failure guard's caller is the principal alone, keyed
	// as Key keys it: two users behind one address are two callers.
	assert.Empty(t, limit.PrincipalKeyFrom(actx), "an address is no caller of the guard")
	assert.Equal(t, limit.Key(pctx), limit.PrincipalKeyFrom(pctx))
	assert.Empty(t, limit.PrincipalKeyFrom(ctx))

	r := httptest.NewRequest("GET", "/mcp", nil)
	r.RemoteAddr = "198.51.100.4:40000"
	assert.Equal(t, "198.51.100.4", limit.RemoteAddrFromContext(limit.HTTPContext(ctx, r)))
}

// Decider decides with the in-process buckets without a store, and
// through the store with one: both refuse the second call of a burst of
// one, with retry_after_ms.
func TestDeciderWithAndWithoutAStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, store := range map[string]limit.Store{"in process": nil, "store": limit.MemoryStore(16)} {
		allow := limit.Decider(store, rate.Every(time.Hour), 1, 16, limit.StoreOptions{})
		require.NoError(t, allow(ctx, "shop_search", "alice", "shop_search"), name)
		require.NoError(t, allow(ctx, "shop_search", "bob", "shop_search"), "%s: another key", name)
		err := allow(ctx, "shop_search", "alice", "shop_search")
		require.Error(t, err, name)
		env := envelope.NewRenderer().Error(ctx, envelope.Call{Tool: "shop_search"}, err)
		assert.Equal(t, envelope.ExecutionFailed, env.ErrorType, name)
		assert.Positive(t, env.RetryAfterMS, name)
		assert.Contains(t, env.Message, "from one caller", name)
		require.NoError(t, allow(ctx, "", "", "shop_search"), name)
		env = envelope.NewRenderer().Error(ctx, envelope.Call{Tool: "shop_search"}, allow(ctx, "", "", "shop_search"))
		assert.Contains(t, env.Message, "per second from all callers together", "%s: the key every caller shares says so", name)
	}
}
