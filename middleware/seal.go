package middleware

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/core/chain"
	"github.com/mcpguard/mcpguard/core/pipeline"
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
// it answers a state that does not open with the envelope of its refusal
// itself; put it inside an envelope layer, whose renderer that envelope
// takes and which renders a state it could not seal:
//
//	s.Use(envelope.Middleware(), middleware.SealState(seal.NewGuard(ring, logger, nil)))
func SealState(g *seal.Guard) server.ToolHandlerMiddleware {
	if g == nil {
		panic("middleware: SealState needs a seal.Guard")
	}
	return envelope.Gate(sealGate{g})
}

// sealGate is the sealing stage, as core/chain runs it in Default's one
// layer and [SealState] alone.
type sealGate struct{ g *seal.Guard }

// Admit opens the requestState req echoes, or refuses the call.
func (s sealGate) Admit(ctx context.Context, req mcp.CallToolRequest) (mcp.CallToolRequest, error) {
	sealed := req.Params.RequestState
	if sealed == "" {
		return req, nil
	}
	state, err := s.g.Open(ctx, s.g.Binding(ctx, req.Params.Name, envelope.ArgumentsOf(req)), sealed)
	if err != nil {
		return req, err
	}
	req.Params.RequestState = state
	return req, nil
}

// Leave seals the requestState a result hands out, bound to the call as
// the client sent it (req, as Admit passed it on): the binding its echo
// opens with.
func (s sealGate) Leave(ctx context.Context, req mcp.CallToolRequest, a envelope.Answer) envelope.Answer {
	res := a.Result
	if res == nil || res.RequestState == "" {
		return a
	}
	sealed, err := s.g.Seal(s.g.Binding(ctx, req.Params.Name, envelope.ArgumentsOf(req)), res.RequestState)
	if err != nil {
		return envelope.Answer{Err: err}
	}
	out := *res
	out.RequestState = sealed
	return envelope.Answer{Result: &out, Err: a.Err}
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

// stateGate is the chain's sealing stage, unless it is off.
func stateGate(o *defaultOptions) (chain.Admission[q], bool) {
	if o.state.off {
		return chain.Admission[q]{}, false
	}
	return chain.Admission[q]{At: pipeline.Seal, Gate: sealGate{seal.NewGuard(o.state.ring, o.logger, o.state.caller, o.state.opts...)}}, true
}
