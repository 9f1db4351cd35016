package proxy

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/seal"
	"github.com/mcpguard/mcpguard/core/wire"
)

// stateOptions configure the sealing of requestState.
type stateOptions struct {
	off  bool
	ring *seal.KeyRing
	opts []seal.Option
}

// WithStateKeys sets the key ring the proxy seals every requestState
// with (see core/seal), and options such as seal.WithTTL. Without it the
// proxy draws a random key when it starts: a state then opens only in
// this process, so proxies behind one address, or a restart, refuse each
// other's states and the client starts over.
func WithStateKeys(ring *seal.KeyRing, opts ...seal.Option) Option {
	return func(o *options) { o.state.ring, o.state.opts = ring, append(o.state.opts, opts...) }
}

// WithoutStateSealing turns the sealing of requestState off: the
// requestState of results and calls passes as it is.
func WithoutStateSealing() Option { return func(o *options) { o.state.off = true } }

// sealGuard returns the Guard's sealer, nil when sealing is off. The
// proxy binds no caller: it knows none.
func (o *options) sealGuard() *seal.Guard {
	if o.state.off {
		return nil
	}
	return seal.NewGuard(o.state.ring, o.logger, nil, o.state.opts...)
}

// openState opens the requestState a tools/call echoes, before the limits
// and the declared check: c then carries the plaintext the upstream is
// sent. A state that does not open refuses the call (its error), which
// never reaches the upstream. The state of a load-shedding answer
// (hold.go) opens too: c then carries the state it carries (the one the
// shed call echoed, "" for none) and its rounds.
func (g *Guard) openState(ctx context.Context, c *call) error {
	if !c.hasState {
		return nil
	}
	opened, err := g.state.OpenCall(ctx, g.state.Binding(ctx, c.tool, c.args), c.state)
	if err != nil {
		return err
	}
	c.state, c.rounds, c.opened = opened.State, opened.Rounds, true
	return nil
}

// upstreamParams are the params the upstream is sent for c: params, as
// read, with the arguments as checked (declared.go) and the opened
// requestState in place of those the client sent; none when it opened
// empty (a load-shedding answer's to a call that echoed none).
func (c *call) upstreamParams(params rpc.Span) rpc.Span {
	if !c.opened && c.sent == nil {
		return params
	}
	var p map[string]json.RawMessage // admitted by readClient: no duplicate or case-folded names
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	switch {
	case c.opened && c.state == "":
		delete(p, "requestState")
	case c.opened:
		p["requestState"], _ = json.Marshal(c.state)
	}
	if c.sent != nil {
		p["arguments"] = c.sent
	}
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// sealState seals the requestState of an upstream's tools/call result,
// returning result itself when it has none: under every name a client's
// encoding/json reads as requestState (in any case, the long s, an
// escape; twice), so that none reaches the client unsealed. Only a
// result that may hold such a name is decoded.
func (g *Guard) sealState(c *call, result []byte) ([]byte, error) {
	if g.state == nil || (bytes.IndexByte(result, '\\') < 0 && !wire.ContainsFold(result, foldRequestState)) {
		return result, nil
	}
	var top map[string]json.RawMessage // escapes decoded: "requestSt\u0061te" is requestState here
	if json.Unmarshal(result, &top) != nil {
		return result, nil
	}
	changed := false
	for name, v := range top {
		var state string
		if !wire.FoldsAs([]byte(name), []byte("requestState")) || json.Unmarshal(v, &state) != nil || state == "" {
			continue
		}
		sealed, err := g.state.Seal(g.state.Binding(context.Background(), c.tool, c.args), state)
		if err != nil {
			return nil, err
		}
		top[name], _ = json.Marshal(sealed)
		changed = true
	}
	if !changed {
		return result, nil
	}
	out, err := json.Marshal(top)
	if err != nil {
		return nil, envelope.Internal(err)
	}
	return out, nil
}
