package gosdk_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/seal"
)

// Without WithStateCaller, a state is bound to the user of the bearer
// token go-sdk's auth reports (RequestExtra.TokenInfo, set here by an
// outer middleware as go-sdk's HTTP handler sets it from
// auth.RequireBearerToken): another user's echo does not open.
func TestSealedStateBoundToTheTokensUser(t *testing.T) {
	t.Parallel()
	ss := newStateServer(t)
	ss.s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.CallToolRequest); ok {
				user := r.Session.InitializeParams().ClientInfo.Name
				r.Extra = &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: user}}
			}
			return next(ctx, method, req)
		}
	})
	connect := func(user string) *mcp.ClientSession {
		st, ct := mcp.NewInMemoryTransports()
		srv, err := ss.s.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Close() })
		c := mcp.NewClient(&mcp.Implementation{Name: user, Version: "0"}, &mcp.ClientOptions{
			MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		})
		cs, err := c.Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	alice, mallory := connect("alice"), connect("mallory")
	state := stateStart(t, alice, "deploy", "staging")
	ss.expectRefused(t, stateCall(t, mallory, "deploy", "staging", state), seal.ErrBinding)
	stateCall(t, alice, "deploy", "staging", state)
	if got := ss.received(); len(got) != 1 || got[0] != "env=staging" {
		t.Fatalf("alice's retry: the handler received %q", got)
	}
}
