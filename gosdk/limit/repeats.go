package limit

import (
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	core "github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/gosdk"
)

// The defaults of the guard gosdk.Middleware has: three failures, each
// further one holding the call back twice as long from one second to a
// minute, forgotten ten minutes after the last (see
// core/limit.DefaultRepeatFailures for the evidence they come from).
const (
	DefaultRepeatFailures   = core.DefaultRepeatFailures
	DefaultRepeatWindow     = core.DefaultRepeatWindow
	DefaultRepeatBackoff    = core.DefaultRepeatBackoff
	DefaultRepeatMaxBackoff = core.DefaultRepeatMaxBackoff
)

// WithRepeatBackoff sets how long [Repeats] holds a call back after its
// n-th failure (d), doubling with each further one up to maxD. It panics
// unless 0 < d <= maxD.
func WithRepeatBackoff(d, maxD time.Duration) Option {
	return core.WithRepeatBackoff[*mcp.CallToolRequest](d, maxD)
}

// RepeatStore keeps the failures of [Repeats] where every replica shares
// them, such as the Redis store of github.com/mcpguard/mcpguard/redisstore.
type RepeatStore = core.RepeatStore

// WithRepeatStore keeps [Repeats]'s failures in s, shared by every
// replica, instead of process memory; each store call is bounded by
// [WithStoreTimeout], and a call whose failures the store cannot tell in
// time runs. It panics on nil.
func WithRepeatStore(s RepeatStore) Option { return core.WithRepeatStore[*mcp.CallToolRequest](s) }

// Repeats returns a repeated-failure guard of n failures within window
// for gosdk.WithRepeats (see gosdk.Repeats for what it does), its callers
// named by [WithKey] (default: the principal, else the MCP session or
// connection), held back as [WithRepeatBackoff] says, in process (at most [WithMaxKeys]
// calls, and no more than 10,000) or in [WithRepeatStore]'s store:
//
//	gosdk.Middleware(gosdk.WithRepeats(limit.Repeats(3, 10*time.Minute, limit.WithRepeatStore(store))))
//
// It panics unless n >= 1 and window > 0.
func Repeats(n int, window time.Duration, opts ...Option) *gosdk.Repeats {
	o := evaluate(opts)
	return gosdk.NewRepeats(o.Repeats(n, window), o.CallerKey())
}
