package limit

import (
	"context"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	core "github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/envelope"
)

// The options, their defaults and their checks are the SDK-neutral core's
// (github.com/mcpguard/mcpguard/core/limit), the very ones the go-sdk
// front's limit package exports; this front only names its request type.

// Option configures [Timeout], [Rate] and [Concurrency]. An option that
// does not apply to a layer is ignored by it.
type Option = core.Option[mcp.CallToolRequest]

// KeyFunc returns the key of the bucket a call draws from. Calls with the
// same key share a bucket; the empty key is one global bucket.
type KeyFunc func(ctx context.Context, req mcp.CallToolRequest) string

// DefaultMaxKeys bounds the buckets [Rate] keeps, so many distinct keys
// (sessions, principals, or an attacker inventing them) cannot exhaust
// memory. Keys beyond it share one overflow bucket until idle ones are
// evicted.
const DefaultMaxKeys = core.DefaultMaxKeys

// DefaultMaxWait is how long [Concurrency] lets a call wait for a slot
// before refusing it.
const DefaultMaxWait = core.DefaultMaxWait

// Store keeps the buckets of [Rate]: [MemoryStore], the default, or one
// every replica of a server shares, such as the Redis store of
// github.com/mcpguard/mcpguard/redisstore. See [WithStore].
type Store = core.Store

// Limiter takes tokens from the buckets of one limit in a [Store]; see
// github.com/mcpguard/mcpguard/core/limit.Limiter for its contract, which
// a Store of your own must keep (return by the context's deadline).
type Limiter = core.Limiter

// MemoryStore returns the in-process store [Rate] uses by default, with
// at most maxKeys buckets. It panics unless maxKeys >= 1.
func MemoryStore(maxKeys int) Store { return core.MemoryStore(maxKeys) }

// DefaultStoreTimeout is how long [Rate] waits, by default, for the
// verdict of a store set with [WithStore] before deciding without it.
const DefaultStoreTimeout = core.DefaultStoreTimeout

func evaluate(opts []Option) *core.Options[mcp.CallToolRequest] {
	return core.Evaluate(DefaultKey, opts)
}

// WithToolTimeout gives one tool its own duration under [Timeout]; zero
// exempts the tool. Other tools keep Timeout's default. It panics on a
// negative duration.
func WithToolTimeout(tool string, d time.Duration) Option {
	return core.WithToolTimeout[mcp.CallToolRequest](tool, d)
}

// WithKey sets how [Rate] keys its buckets. The default is [DefaultKey].
// It panics on nil.
func WithKey(fn KeyFunc) Option { return core.WithKey[mcp.CallToolRequest](fn) }

// WithPerTool gives every tool its own buckets under [Rate] (one per key
// and tool) and its own n slots under [Concurrency], instead of one budget
// shared by every tool behind the layer.
func WithPerTool() Option { return core.WithPerTool[mcp.CallToolRequest]() }

// WithMaxKeys bounds the buckets [Rate] keeps; the default is
// [DefaultMaxKeys]. It panics unless n >= 1.
func WithMaxKeys(n int) Option { return core.WithMaxKeys[mcp.CallToolRequest](n) }

// WithMaxWait sets how long [Concurrency] lets a call wait for a slot
// before refusing it; zero refuses at once. The default is
// [DefaultMaxWait]. It panics on a negative duration.
func WithMaxWait(d time.Duration) Option { return core.WithMaxWait[mcp.CallToolRequest](d) }

// WithEnvelopeOptions adds envelope options to those refusals and
// timeouts are rendered with. Inside a chain they render with the
// envelope layer's configuration already (its logger, redactor, mappings
// and default next steps); these add to it, a setting they give replacing
// the chain's (envelope.Renderer.With). Alone, the layer renders with
// these options only.
func WithEnvelopeOptions(opts ...envelope.Option) Option {
	return core.WithEnvelopeOptions[mcp.CallToolRequest](opts...)
}

// WithLogger sets where [Rate] logs the outages of its [WithStore]
// store, and where [Timeout] logs a handler that panicked after its
// deadline, when no caller is left to hand the panic to. The default is
// [slog.Default] at the time of the panic.
func WithLogger(l *slog.Logger) Option { return core.WithLogger[mcp.CallToolRequest](l) }

// WithStore keeps [Rate]'s buckets in s instead of process memory, so that
// several replicas of a server share one budget. Each store call is
// bounded by [WithStoreTimeout]; a call the store does not decide in time
// (down, hung, or answering garbage) is decided by a bucket of the same
// rate for its key in this process (a flood that makes the store miss
// its deadline gains nothing), refused once the store is down with
// [WithFailClosed], or allowed with [WithFailOpen]; the calls after it
// are decided so at once, without waiting for the store, until a probe in
// the background finds it answering (after 100 ms, then twice as long
// each time, up to 2 s). [WithLogger]'s logger gets one warning when the
// store fails (message core/limit.StoreLogMessage, with the tool, the
// outcome and the store's error), one every 10 s while it is down with
// how many calls were decided without it, and one when it is back. A
// store that answers a key with something other than a verdict
// (core/limit.ErrNoVerdict) is not down: that call is decided without it
// and logged. [WithMaxKeys] bounds the local buckets. It panics on nil.
func WithStore(s Store) Option { return core.WithStore[mcp.CallToolRequest](s) }

// WithStoreTimeout bounds each call [Rate] makes to its [WithStore]
// store; the default is [DefaultStoreTimeout]. It panics unless d > 0.
func WithStoreTimeout(d time.Duration) Option {
	return core.WithStoreTimeout[mcp.CallToolRequest](d)
}

// WithFailClosed makes [Rate] refuse a call its [WithStore] store could
// not decide once the store has given no verdict for a second
// (core/limit.StoreDownAfter), with an execution_failed envelope,
// retryable, retry_after_ms one second; a store that answers, only not
// this call in time, is not down, and the local bucket decides the call.
// It undoes [WithFailOpen].
func WithFailClosed() Option { return core.WithFailClosed[mcp.CallToolRequest]() }

// WithFailOpen makes [Rate] allow a call its [WithStore] store could not
// decide: no limit at all while the store is away, instead of the local
// bucket of the call's key, the default. It undoes [WithFailClosed].
func WithFailOpen() Option { return core.WithFailOpen[mcp.CallToolRequest]() }

// WithStoreReplicas says that n replicas share [Rate]'s [WithStore]
// store: the local bucket that decides a call the store missed gives
// each replica rate / n, so that together they stay within the rate
// while the store is away. The default, 1, gives each the full rate. It
// panics unless n >= 1.
func WithStoreReplicas(n int) Option { return core.WithStoreReplicas[mcp.CallToolRequest](n) }

// WithOnStoreUnavailable calls fn for each call [Rate] decided without its
// [WithStore] store, with the store's error: the hook for a metric (a
// counter of decisions made without the store). It is called per call,
// not per outage: for the call whose store call failed, and for each call
// decided without asking the store because it is down, with the store's
// last error (the log says when an outage starts and ends). A panic in fn
// is dropped. It panics on a nil fn.
func WithOnStoreUnavailable(fn func(ctx context.Context, err error)) Option {
	return core.WithOnStoreUnavailable[mcp.CallToolRequest](fn)
}

// DefaultHoldCap is how long [Rate] and [Concurrency] hold, by default, a
// refused call of a client that negotiated MCP 2026-07-28, until the
// limit admits it, instead of refusing it at once.
const DefaultHoldCap = core.DefaultHoldCap

// WithHoldCap sets how long [Rate] and [Concurrency] may hold a call of a
// client that negotiated MCP 2026-07-28 (multi round-trip) until the
// limit admits it; a call whose wait is longer, or whose deadline is
// nearer, is refused at once, as for older clients. The default is
// [DefaultHoldCap]; zero turns holding off. It panics on a negative
// duration.
func WithHoldCap(d time.Duration) Option { return core.WithHoldCap[mcp.CallToolRequest](d) }

// HoldPerCaller bounds the calls of one key that [Rate] or [Concurrency]
// hold at once, and HoldMax those of all keys: the calls beyond are
// answered at once.
const (
	HoldPerCaller = core.HoldPerCaller
	HoldMax       = core.HoldMax
)
