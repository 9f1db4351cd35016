package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	corelimit "github.com/mcpguard/mcpguard/core/limit"
)

// Repeats is the repeated-failure guard of the Middleware: once the
// identical call of a caller (same tool, same arguments by digest) has
// failed N times within a window with a failure it cannot overcome
// unchanged (validation_error, not_found, access_denied,
// authentication_failed or configuration_error, not retryable), the next
// identical call is answered without running the handler: an envelope
// of the failure's code, not retryable, that says the call already
// failed N times with these arguments, with the failure's own next
// steps. The Middleware has one by default, 3 failures in 10 minutes per
// [CallerKey] in process; github.com/mcpguard/mcpguard/gosdk/limit.Repeats
// builds another (its own key, a store every replica shares), for
// [WithRepeats].
type Repeats struct {
	g   *corelimit.Repeats
	key func(context.Context, *mcp.CallToolRequest) string
}

// NewRepeats returns the guard g keyed by key, for [WithRepeats]. It
// panics on a nil g or key.
func NewRepeats(g *corelimit.Repeats, key func(context.Context, *mcp.CallToolRequest) string) *Repeats {
	if g == nil || key == nil {
		panic("gosdk.NewRepeats: nil guard or key function")
	}
	return &Repeats{g: g, key: key}
}

// WithRepeats replaces the Middleware's repeated-failure guard with r; a
// nil r turns it off.
func WithRepeats(r *Repeats) Option {
	return func(o *options) { o.repeats, o.repeatsSet = r, true }
}

// CallerKey is who a call is from, for the limits and the guard: the
// user of the request's TokenInfo, else the principal or remote address
// named in the context (core/limit.Key), else "" (every caller alike).
// It never uses the MCP session, which a client can mint.
func CallerKey(ctx context.Context, req *mcp.CallToolRequest) string {
	if req != nil && req.Extra != nil && req.Extra.TokenInfo != nil && req.Extra.TokenInfo.UserID != "" {
		return corelimit.PrincipalKey(req.Extra.TokenInfo.UserID)
	}
	return corelimit.Key(ctx)
}

// defaultRepeats is the guard a Middleware has unless WithRepeats says
// otherwise.
func defaultRepeats() *Repeats {
	return NewRepeats(corelimit.NewRepeats(corelimit.DefaultRepeatFailures, corelimit.DefaultRepeatWindow,
		nil, corelimit.DefaultRepeatMaxKeys, 0), CallerKey)
}

// check returns the call's arguments when it had to read them, and the
// error to answer the call with instead of running it, or nil. A nil r
// runs every call.
func (r *Repeats) check(ctx context.Context, req *mcp.CallToolRequest) ([]byte, error) {
	if r == nil || r.g.Idle() || req.Params == nil {
		return nil, nil
	}
	args := []byte(req.Params.Arguments)
	return args, r.g.Check(ctx, r.key(ctx, req), req.Params.Name, args)
}

// record counts the call's failure, if res is an envelope the guard
// counts.
func (r *Repeats) record(ctx context.Context, req *mcp.CallToolRequest, res mcp.Result, args []byte) {
	if r == nil || req.Params == nil {
		return
	}
	out, ok := res.(*mcp.CallToolResult)
	if !ok || out == nil || !out.IsError {
		return
	}
	env, ok := renderedEnvelope(out)
	if !ok || !corelimit.Repeated(env.ErrorType, env.Retryable) {
		return
	}
	if args == nil {
		args = []byte(req.Params.Arguments)
	}
	r.g.Record(ctx, r.key(ctx, req), req.Params.Name, args, env.ErrorType, env.Retryable, env.NextSteps)
}
