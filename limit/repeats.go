package limit

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	core "github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/envelope"
)

// The defaults of [Repeats], which middleware.Default puts in its chain:
// three failures within ten minutes (see core/limit.DefaultRepeatFailures
// for the evidence they come from).
const (
	DefaultRepeatFailures = core.DefaultRepeatFailures
	DefaultRepeatWindow   = core.DefaultRepeatWindow
)

// RepeatStore keeps the failures [Repeats] counts where every replica
// shares them, such as the Redis store of
// github.com/mcpguard/mcpguard/redisstore. See [WithRepeatStore].
type RepeatStore = core.RepeatStore

// WithRepeatStore keeps [Repeats]'s failures in s, shared by every
// replica, instead of process memory; each store call is bounded by
// [WithStoreTimeout], and a call whose failures the store cannot tell in
// time runs. It panics on nil.
func WithRepeatStore(s RepeatStore) Option { return core.WithRepeatStore[mcp.CallToolRequest](s) }

// Repeats stops agents that repeat a failing call. Once the identical
// call of a caller (same tool, same arguments by digest, same key: see
// [WithKey]) has failed n times within window with a failure it cannot
// overcome unchanged (validation_error, not_found, access_denied,
// authentication_failed or configuration_error, not retryable), the next
// identical call is answered without running the handler: an envelope of
// the failure's code, not retryable, whose message says the call already
// failed n times with these arguments, and whose next steps are the
// failure's own. Other arguments, another tool or another caller run as
// usual; retryable failures never count.
//
// It reads the envelope a failed call was answered with, so it sits
// outside the envelope layer: middleware.Default puts it there, with n
// [DefaultRepeatFailures] and window [DefaultRepeatWindow]. While no call
// has failed it costs an atomic load and allocates nothing; it keeps at
// most [WithMaxKeys] calls (and no more than 10,000), each as a 32-byte
// digest, forgotten window after its last failure. With
// [WithRepeatStore] the count is shared by every replica.
//
// Repeats panics unless n >= 1 and window > 0.
func Repeats(n int, window time.Duration, opts ...Option) server.ToolHandlerMiddleware {
	o := evaluate(opts)
	g, key := o.Repeats(n, window), o.Key()
	overlay := envelope.NewOverlay(o.EnvelopeOptions()...)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args []byte
			if !g.Idle() {
				args = arguments(req)
				if err := g.Check(ctx, key(ctx, req), req.Params.Name, args); err != nil {
					return envelope.RendererFrom(ctx, nil).Over(overlay).Error(ctx, req, err), nil
				}
			}
			res, err := next(ctx, req)
			if err != nil || res == nil || !res.IsError {
				return res, err
			}
			if env, ok := envelope.FromResult(res); ok && core.Repeated(env.ErrorType, env.Retryable) {
				if args == nil {
					args = arguments(req)
				}
				g.Record(ctx, key(ctx, req), req.Params.Name, args, env.ErrorType, env.Retryable, env.NextSteps)
			}
			return res, nil
		}
	}
}

// arguments are the call's arguments as JSON, for their digest: a map's
// keys sorted, so that the same arguments in another order are the same
// call.
func arguments(req mcp.CallToolRequest) []byte {
	b, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return nil
	}
	return b
}
