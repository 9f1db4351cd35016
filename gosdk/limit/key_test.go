package limit_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk/limit"
)

// TestDefaultKey: the TokenInfo user first, then a principal or an
// address named in the context, else the global key; a TokenInfo user is
// the principal of the same name, and never an address.
func TestDefaultKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool}}
	authed := func(user string) *mcp.CallToolRequest {
		return &mcp.CallToolRequest{Params: bare.Params, Extra: &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: user}}}
	}
	addr := limit.ContextWithRemoteAddr(ctx, "[2001:db8::7]:4431")
	if got := limit.RemoteAddrFromContext(addr); got != "2001:db8::/64" {
		t.Errorf("RemoteAddrFromContext = %q", got)
	}
	alice := limit.ContextWithPrincipal(ctx, "alice")
	if got := limit.PrincipalFromContext(alice); got != "alice" {
		t.Errorf("PrincipalFromContext = %q", got)
	}
	for _, c := range []struct {
		name      string
		a, b      string
		wantEqual bool
	}{
		{"no identity: the global key", limit.DefaultKey(ctx, bare), "", true},
		{"nil request", limit.DefaultKey(ctx, nil), "", true},
		{"TokenInfo user = principal", limit.DefaultKey(ctx, authed("alice")), limit.DefaultKey(alice, bare), true},
		{"TokenInfo wins over the address", limit.DefaultKey(addr, authed("alice")), limit.DefaultKey(alice, bare), true},
		{"an empty user falls through", limit.DefaultKey(addr, authed("")), limit.DefaultKey(addr, bare), true},
		{"users apart", limit.DefaultKey(ctx, authed("alice")), limit.DefaultKey(ctx, authed("bob")), false},
		{"a user is not an address", limit.DefaultKey(ctx, authed("2001:db8::/64")), limit.DefaultKey(addr, bare), false},
	} {
		if (c.a == c.b) != c.wantEqual {
			t.Errorf("%s: %q vs %q", c.name, c.a, c.b)
		}
	}
}
