package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/seal"
)

// stateOptions configure the requestState sealing step of [Middleware].
type stateOptions struct {
	off    bool
	ring   *seal.KeyRing
	opts   []seal.Option
	caller func(context.Context) string
}

// WithStateKeys sets the key ring the [Middleware] seals every
// requestState with, and options such as seal.WithTTL or
// seal.WithAudience. Without it the Middleware draws a random key when it
// is built: a state then opens only in this process, so replicas behind
// one address, or a restart, refuse each other's states and the client
// starts over. Give every replica the same ring:
//
//	ring, err := seal.ParseKeyRing([]byte(os.Getenv("MCPGUARD_STATE_KEYS")))
//	gosdk.Install(server, gosdk.WithStateKeys(ring))
func WithStateKeys(ring *seal.KeyRing, opts ...seal.Option) Option {
	return func(o *options) { o.state.ring, o.state.opts = ring, append(o.state.opts, opts...) }
}

// WithStateCaller binds every sealed state to the caller that caller
// returns for a call's context, such as the authenticated principal, so
// that a state handed to one user does not open for another. Without it
// the Middleware binds the UserID of the bearer token go-sdk's auth
// reports for the call (RequestExtra.TokenInfo), where there is one.
func WithStateCaller(caller func(context.Context) string) Option {
	return func(o *options) { o.state.caller = caller }
}

// WithoutStateSealing turns the sealing step of [Middleware] off: handlers
// then receive the requestState a client echoes as the client wrote it.
func WithoutStateSealing() Option {
	return func(o *options) { o.state.off = true }
}

// stateGate returns the sealing step, or nil when it is off. It sits
// inside the Middleware's guard, whose renderer answers its refusal, and
// outside hints, the limits and the declared schemas: on the way out it
// seals the requestState of every tools/call result that has one (the
// handler's plaintext, AES-256-GCM, an expiry, bound to the tool, the
// arguments and the caller), and on the way in it opens the requestState
// a call echoes before anything inside runs. A state that does not open
// never reaches the handler: the call is answered with one
// validation_error envelope ([seal.RefusedMessage]), the reason logged.
func (o *options) stateGate() *sealGate {
	if o.state.off {
		return nil
	}
	return &sealGate{seal.NewGuard(o.state.ring, o.logger, o.state.caller, o.state.opts...)}
}

// sealGate is the sealing step, a gate of the Middleware's chain
// (core/chain).
type sealGate struct{ g *seal.Guard }

// Admit opens the requestState r echoes into a copy of r (the request
// go-sdk decoded is not modified), or refuses the call.
func (s *sealGate) Admit(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolRequest, error) {
	if r.Params == nil {
		return r, nil
	}
	c := stateOf(ctx)
	if c != nil {
		c.shedding = shedding{on: true}
	}
	sealed := r.Params.RequestState
	if sealed == "" {
		return r, nil
	}
	opened, err := s.g.OpenCall(ctx, binding(ctx, s.g, r), sealed)
	if err != nil {
		return r, err
	}
	if c != nil {
		c.shedding.rounds = opened.Rounds
	}
	params := *r.Params
	params.RequestState = opened.State
	return &mcp.CallToolRequest{Session: r.Session, Params: &params, Extra: r.Extra}, nil
}

// Leave seals the requestState a result hands out (a load-shedding
// answer's as a shed state), bound to the call as the client sent it.
func (s *sealGate) Leave(ctx context.Context, r *mcp.CallToolRequest, an answer) answer {
	out, ok := an.res.(*mcp.CallToolResult)
	shed := ok && out != nil && isShed(ctx, out)
	if !ok || out == nil || (out.RequestState == "" && !shed) || r.Params == nil {
		return an
	}
	sealed, err := sealOut(s.g, binding(ctx, s.g, r), out.RequestState, shed, stateOf(ctx))
	if err != nil {
		return answer{nil, err}
	}
	cp := *out // keeps the result type and what GetError returns
	cp.RequestState = sealed
	return answer{&cp, an.err}
}

// binding is the call's binding: its tool, its arguments as the client
// sent them, and the caller (the Guard's, else the bearer token's user).
func binding(ctx context.Context, g *seal.Guard, r *mcp.CallToolRequest) seal.Binding {
	b := g.Binding(ctx, r.Params.Name, r.Params.Arguments)
	if g.Caller == nil && r.Extra != nil && r.Extra.TokenInfo != nil {
		b.Caller = r.Extra.TokenInfo.UserID
	}
	return b
}

// sealOut seals the requestState of a result: a load-shedding answer's
// as a shed state, its round the one after the call's (c's), carrying
// the handler's state the call echoed; any other as the handler's.
func sealOut(g *seal.Guard, b seal.Binding, state string, shed bool, c *callCtx) (string, error) {
	if shed {
		return g.SealShed(b, c.shedding.rounds+1, state)
	}
	return g.Seal(b, state)
}
