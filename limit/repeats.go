package limit

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/core/chain"
	core "github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/envelope"
)

// The defaults of [Repeats], which middleware.Default puts in its chain:
// three failures, each further one holding the call back twice as long
// from one second to a minute, forgotten ten minutes after the last (see
// core/limit.DefaultRepeatFailures for the evidence they come from).
const (
	DefaultRepeatFailures   = core.DefaultRepeatFailures
	DefaultRepeatWindow     = core.DefaultRepeatWindow
	DefaultRepeatBackoff    = core.DefaultRepeatBackoff
	DefaultRepeatMaxBackoff = core.DefaultRepeatMaxBackoff
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

// WithRepeatBackoff sets how long [Repeats] holds a call back after its
// n-th failure (d), doubling with each further one up to maxD. It panics
// unless 0 < d <= maxD.
func WithRepeatBackoff(d, maxD time.Duration) Option {
	return core.WithRepeatBackoff[mcp.CallToolRequest](d, maxD)
}

// Repeats stops agents that repeat a failing call, and never holds back
// a call the handler would answer otherwise than before:
//
//   - Scope: counts belong to one caller, the principal the server named
//     ([ContextWithPrincipal]), else the MCP session (on stdio, the
//     connection); [WithKey] names callers otherwise. A caller with
//     neither (a stateless HTTP server without authentication) is never
//     held back. Never one bucket for everyone, never an address.
//   - Same call: the same tool with the same arguments, compared in
//     canonical form (member order, white space, escapes and 1 against
//     1.0 do not matter; every digit of a number does).
//   - What counts: a failure the identical call cannot overcome while
//     nothing changes (validation_error, not_found, access_denied,
//     configuration_error, not retryable). Never authentication_failed,
//     a retryable failure, the guard's own answer, or a call that echoes
//     a requestState.
//   - Released when the world may have changed: any call of the caller
//     that succeeds, or new credentials (its Authorization header),
//     forget every count of the caller.
//
// Once the identical call failed n times, it is held back for a wait that
// doubles with each further failure ([DefaultRepeatBackoff] to
// [DefaultRepeatMaxBackoff]; [WithRepeatBackoff]): answered without
// running the handler with a retryable execution_failed envelope, its
// retry_after_ms, a message that says it was not run and quotes the last
// real failure, and that failure's own next steps.
//
// It reads the envelope a failed call was answered with, so it sits
// outside the envelope layer: middleware.Default puts it there. While no
// call has failed it costs an atomic load and allocates nothing; in
// process it keeps at most [WithMaxKeys] calls (no more than 10,000, and
// 256 per caller, a caller's oldest evicted first), each forgotten window
// after its last failure. With [WithRepeatStore] every replica shares the
// counts.
//
// Repeats panics unless n >= 1 and window > 0.
func Repeats(n int, window time.Duration, opts ...Option) server.ToolHandlerMiddleware {
	return envelope.Layer(chain.Guard(RepeatsStage(n, window, opts...)))
}

// RepeatsStage returns the guard [Repeats] runs, for a core/chain of
// several stages: middleware.Default runs it with recovery, redaction
// and rendering in one chain. Repeats(n, window, opts...) is the stage
// alone. It panics as Repeats does.
func RepeatsStage(n int, window time.Duration, opts ...Option) (chain.Guarder[mcp.CallToolRequest, envelope.Answer], *core.RepeatStage[mcp.CallToolRequest]) {
	o := evaluate(opts)
	stage := core.NewRepeatStage(o.Repeats(n, window), repeatReader(o.CallerKey()))
	return guarder{overlay: envelope.NewOverlay(o.EnvelopeOptions()...)}, &stage
}

// guarder is the layer's adapter of core/chain's Repeats stage.
type guarder struct {
	envelope.Reading
	overlay *envelope.Overlay
}

// Known: mcp-go answers a call of a tool it does not have before any
// layer.
func (guarder) Known(context.Context, mcp.CallToolRequest) bool { return true }

// Envelope reads the envelope of an error result, which the envelope
// layer inside rendered.
func (guarder) Envelope(a envelope.Answer) (*envelope.Envelope, bool) {
	return envelope.FromResult(a.Result)
}

// Refuse renders the guard's answer as the envelope layer serving the
// server would, with the layer's own envelope options added: final, since
// the guard sits outside that layer.
func (g guarder) Refuse(ctx context.Context, req mcp.CallToolRequest, err error) envelope.Answer {
	return envelope.Answer{Result: envelope.RendererOutside(ctx, nil).Over(g.overlay).Error(ctx, req, err)}
}

// repeatReader reads a call as the guard does: its caller is key's, else
// the principal the server named, else the MCP session; its credential,
// the Authorization header it came with.
func repeatReader(key func(context.Context, mcp.CallToolRequest) string) func(context.Context, mcp.CallToolRequest) core.RepeatCall {
	return func(ctx context.Context, req mcp.CallToolRequest) core.RepeatCall {
		c := core.RepeatCall{Tool: req.Params.Name, Args: envelope.ArgumentsOf(req), Continued: req.Params.RequestState != ""}
		if key != nil {
			c.Caller.Key = key(ctx, req)
		} else {
			c.Caller.Key = core.PrincipalKeyFrom(ctx)
			if s := server.ClientSessionFromContext(ctx); s != nil && c.Caller.Key == "" {
				c.Caller.Session = s.SessionID()
			}
		}
		if req.Header != nil {
			c.Caller.Credential = req.Header.Get("Authorization")
		}
		return c
	}
}
