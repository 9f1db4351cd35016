package middleware

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/core/seal"
	"github.com/mcpguard/mcpguard/envelope"
)

// SealState returns the layer that protects the requestState of multi
// round-trip calls (MCP 2026-07-28): on the way out it seals the
// requestState of every result that has one (g.Sealer: AES-256-GCM, an
// expiry, bound to the tool, the call's arguments and the caller), and on
// the way in it opens the requestState a call echoes before the handler
// runs, so that the handler reads and writes its own plaintext. A state
// that does not open (edited, expired, echoed on another tool, other
// arguments or by another caller, sealed with a key the ring lacks) never
// reaches the handler: the call is answered with a validation_error that
// tells the client to start over ([seal.RefusedMessage]), and the reason
// is logged to g.Logger only. Calls without a requestState pass through
// without allocating.
//
// [Default] includes it (configure it with [WithStateKeys] and
// [WithStateCaller], turn it off with [WithoutStateSealing]). On its own,
// put it inside an envelope layer, which renders its refusal:
//
//	s.Use(envelope.Middleware(), middleware.SealState(seal.NewGuard(ring, logger, nil)))
func SealState(g *seal.Guard) server.ToolHandlerMiddleware {
	if g == nil {
		panic("middleware: SealState needs a seal.Guard")
	}
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var b *seal.Binding
			if sealed := req.Params.RequestState; sealed != "" {
				bind := g.Binding(ctx, req.Params.Name, envelope.ArgumentsOf(req))
				b = &bind
				state, err := g.Open(ctx, bind, sealed)
				if err != nil {
					return nil, err
				}
				req.Params.RequestState = state
			}
			res, err := next(ctx, req)
			if res == nil || res.RequestState == "" {
				return res, err
			}
			if b == nil {
				bind := g.Binding(ctx, req.Params.Name, envelope.ArgumentsOf(req))
				b = &bind
			}
			sealed, serr := g.Seal(*b, res.RequestState)
			if serr != nil {
				return nil, serr
			}
			out := *res
			out.RequestState = sealed
			return &out, err
		}
	}
}

// stateOptions configure the sealing layer of [Default].
type stateOptions struct {
	off    bool
	ring   *seal.KeyRing
	opts   []seal.Option
	caller func(context.Context) string
}

// WithStateKeys sets the key ring [Default]'s sealing layer ([SealState])
// seals with, and options such as seal.WithTTL or seal.WithAudience.
// Without it the chain draws a random key when Default is called: a state
// then opens only in this process, so replicas behind one address, or a
// restart, refuse each other's states and the client starts over. Give
// every replica the same ring:
//
//	ring, err := seal.ParseKeyRing([]byte(os.Getenv("MCPGUARD_STATE_KEYS")))
//	s.Use(middleware.Default(middleware.WithStateKeys(ring))...)
func WithStateKeys(ring *seal.KeyRing, opts ...seal.Option) Option {
	return func(o *defaultOptions) { o.state.ring, o.state.opts = ring, append(o.state.opts, opts...) }
}

// WithStateCaller binds every sealed state to the caller that caller
// returns for a call's context, such as the authenticated principal, so
// that a state handed to one user does not open for another. Without it
// no caller is bound (2026-07-28 requests have no session to bind to).
func WithStateCaller(caller func(context.Context) string) Option {
	return func(o *defaultOptions) { o.state.caller = caller }
}

// WithoutStateSealing turns the sealing layer of [Default] off: handlers
// then receive the requestState a client echoes as the client wrote it.
func WithoutStateSealing() Option {
	return func(o *defaultOptions) { o.state.off = true }
}

// stateLayer is the chain's sealing layer, or nil when it is off.
func stateLayer(o *defaultOptions) server.ToolHandlerMiddleware {
	if o.state.off {
		return nil
	}
	return SealState(seal.NewGuard(o.state.ring, o.logger, o.state.caller, o.state.opts...))
}
