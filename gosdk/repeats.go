package gosdk

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	corelimit "github.com/mcpguard/mcpguard/core/limit"
)

// Repeats is the repeated-failure guard of the Middleware, the one stage
// of core/limit every consumer runs. It stops an agent that repeats a
// failing call, and never holds back a call the handler would answer
// otherwise than before:
//
//   - Scope: counts belong to one caller, the user of the request's
//     TokenInfo or a principal named in the context
//     (core/limit.ContextWithPrincipal), else the MCP session (on stdio,
//     the connection). A stateless server without authentication gives
//     each request a session of its own: it is never held back.
//   - Same call: the same tool with the same arguments in canonical form
//     (member order, white space, escapes and 1 against 1.0 do not
//     matter; every digit of a number does).
//   - What counts: validation_error, not_found, access_denied and
//     configuration_error, not retryable. Never authentication_failed, a
//     retryable failure, the guard's own answer, or a call that echoes a
//     requestState.
//   - Released: any call of the caller that succeeds, or new credentials
//     (the Authorization header), forget the caller's counts.
//
// Once the identical call failed N times, it is held back for a wait that
// doubles with each further failure (1 s to 1 min by default): answered
// without running the handler with a retryable execution_failed envelope
// with retry_after_ms, a message that says it was not run and quotes the
// last real failure, and that failure's own next steps. The Middleware
// has one by default, 3 failures forgotten 10 minutes after the last, in
// process; github.com/mcpguard/mcpguard/gosdk/limit.Repeats builds
// another (its own key, a store every replica shares), for [WithRepeats].
type Repeats struct {
	stage corelimit.RepeatStage[*mcp.CallToolRequest]
}

// NewRepeats returns the guard g, whose callers key names (nil: the
// principal, else the MCP session or connection), for [WithRepeats]. It
// panics on a nil g.
func NewRepeats(g *corelimit.Repeats, key func(context.Context, *mcp.CallToolRequest) string) *Repeats {
	if g == nil {
		panic("gosdk.NewRepeats: nil guard")
	}
	return &Repeats{stage: corelimit.NewRepeatStage(g, repeatReader(key))}
}

// WithRepeats replaces the Middleware's repeated-failure guard with r; a
// nil r turns it off.
func WithRepeats(r *Repeats) Option {
	return func(o *options) { o.repeats, o.repeatsSet = r, true }
}

// CallerKey is who a call is from, for the limits: the user of the
// request's TokenInfo, else the principal or remote address named in the
// context (core/limit.Key), else "" (every caller alike). It never uses
// the MCP session, which a client can mint.
func CallerKey(ctx context.Context, req *mcp.CallToolRequest) string {
	if req != nil && req.Extra != nil && req.Extra.TokenInfo != nil && req.Extra.TokenInfo.UserID != "" {
		return corelimit.PrincipalKey(req.Extra.TokenInfo.UserID)
	}
	return corelimit.Key(ctx)
}

// repeatReader reads a call as the guard does.
func repeatReader(key func(context.Context, *mcp.CallToolRequest) string) func(context.Context, *mcp.CallToolRequest) corelimit.RepeatCall {
	return func(ctx context.Context, req *mcp.CallToolRequest) corelimit.RepeatCall {
		var c corelimit.RepeatCall
		if req.Params != nil {
			c.Tool, c.Args, c.Continued = req.Params.Name, []byte(req.Params.Arguments), req.Params.RequestState != ""
		}
		switch {
		case key != nil:
			c.Caller.Key = key(ctx, req)
		case req.Extra != nil && req.Extra.TokenInfo != nil && req.Extra.TokenInfo.UserID != "":
			c.Caller.Key = corelimit.PrincipalKey(req.Extra.TokenInfo.UserID)
		default:
			c.Caller.Key = corelimit.PrincipalKeyFrom(ctx)
		}
		if c.Caller.Key == "" && req.Session != nil {
			c.Caller.Session = sessionOf(req.Session)
		}
		if req.Extra != nil && req.Extra.Header != nil {
			c.Caller.Credential = req.Extra.Header.Get("Authorization")
		}
		return c
	}
}

// sessionOf names a session: its ID, or, for a transport without session
// IDs (stdio, in memory), the connection, by a number of this process
// that no later connection gets.
func sessionOf(ss *mcp.ServerSession) string {
	if id := ss.ID(); id != "" {
		return id
	}
	w := weak.Make(ss)
	if id, ok := connections.Load(w); ok {
		return id.(string)
	}
	id := "conn-" + strconv.FormatInt(connectionCount.Add(1), 10)
	if prev, loaded := connections.LoadOrStore(w, id); loaded {
		return prev.(string)
	}
	runtime.AddCleanup(ss, func(w weak.Pointer[mcp.ServerSession]) { connections.Delete(w) }, w)
	return id
}

var (
	connections     sync.Map // weak.Pointer[mcp.ServerSession] -> string
	connectionCount atomic.Int64
)

// defaultRepeats is the guard a Middleware has unless WithRepeats says
// otherwise.
func defaultRepeats() *Repeats {
	return NewRepeats(corelimit.NewRepeats(corelimit.DefaultRepeatFailures, corelimit.DefaultRepeatWindow,
		nil, corelimit.DefaultRepeatMaxKeys, 0), nil)
}
