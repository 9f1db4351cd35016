package limit

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	core "github.com/mcpguard/mcpguard/core/limit"
)

// Option configures [Timeout], [Rate] and [Concurrency]. An option that
// does not apply to a layer is ignored by it.
type Option func(*options)

// KeyFunc returns the key of the bucket a call draws from. Calls with the
// same key share a bucket; the empty key is one global bucket.
type KeyFunc func(ctx context.Context, req *mcp.CallToolRequest) string

// DefaultMaxKeys bounds the buckets [Rate] keeps, so many distinct keys
// (principals, addresses, or an attacker inventing them) cannot exhaust
// memory. Keys beyond it share one overflow bucket until idle ones are
// evicted.
const DefaultMaxKeys = core.DefaultMaxKeys

// DefaultMaxWait is how long [Concurrency] lets a call wait for a slot
// before refusing it.
const DefaultMaxWait = core.DefaultMaxWait

type options struct {
	toolTimeouts map[string]time.Duration
	key          KeyFunc
	perTool      bool
	maxKeys      int
	maxWait      time.Duration
	store        core.Store
	storeOpts    core.StoreOptions
	logger       *slog.Logger
}

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

func evaluate(opts []Option) *options {
	o := &options{key: DefaultKey, maxKeys: DefaultMaxKeys, maxWait: DefaultMaxWait}
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
	return o
}

// WithToolTimeout gives one tool its own duration under [Timeout]; zero
// exempts the tool. Other tools keep Timeout's default.
func WithToolTimeout(tool string, d time.Duration) Option {
	if d < 0 {
		panic(fmt.Sprintf("limit: WithToolTimeout(%q, %s): negative duration", tool, d))
	}
	return func(o *options) {
		if o.toolTimeouts == nil {
			o.toolTimeouts = map[string]time.Duration{}
		}
		o.toolTimeouts[tool] = d
	}
}

// WithKey sets how [Rate] keys its buckets. The default is [DefaultKey].
func WithKey(fn KeyFunc) Option {
	if fn == nil {
		panic("limit: WithKey with a nil function")
	}
	return func(o *options) { o.key = fn }
}

// WithPerTool gives every tool its own buckets under [Rate] (one per key
// and tool) and its own n slots under [Concurrency], instead of one budget
// shared by every tool behind the layer. Only tools the server has get
// state of their own; see the package documentation.
func WithPerTool() Option { return func(o *options) { o.perTool = true } }

// WithMaxKeys bounds the buckets [Rate] keeps; the default is
// [DefaultMaxKeys].
func WithMaxKeys(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("limit: WithMaxKeys(%d): need at least 1", n))
	}
	return func(o *options) { o.maxKeys = n }
}

// WithMaxWait sets how long [Concurrency] lets a call wait for a slot
// before refusing it; zero refuses at once. The default is
// [DefaultMaxWait].
func WithMaxWait(d time.Duration) Option {
	if d < 0 {
		panic(fmt.Sprintf("limit: WithMaxWait(%s): negative duration", d))
	}
	return func(o *options) { o.maxWait = d }
}

// WithLogger sets where [Rate] logs a call decided without its
// [WithStore] store, and where [Timeout] logs a handler that panicked after its
// deadline, when no caller is left to hand the panic to. The default is
// [slog.Default] at the time of the panic.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithStore keeps [Rate]'s buckets in s instead of process memory, so that
// several replicas of a server share one budget. Each store call is
// bounded by [WithStoreTimeout]; a call the store does not decide in time
// (down, hung, or answering garbage) is allowed, fail open, unless
// [WithFailClosed] is given, and logged to [WithLogger]'s logger with
// message core/limit.StoreLogMessage. [WithMaxKeys] applies only to the
// in-process store.
func WithStore(s Store) Option {
	if s == nil {
		panic("limit: WithStore with a nil Store")
	}
	return func(o *options) { o.store = s }
}

// WithStoreTimeout bounds each call [Rate] makes to its [WithStore]
// store; the default is [DefaultStoreTimeout].
func WithStoreTimeout(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("limit: WithStoreTimeout(%s): need a positive duration", d))
	}
	return func(o *options) { o.storeOpts.Timeout = d }
}

// WithFailClosed makes [Rate] refuse a call its [WithStore] store could
// not decide, with an execution_failed envelope, retryable, retry_after_ms
// one second, instead of allowing it (fail open, the default).
func WithFailClosed() Option { return func(o *options) { o.storeOpts.FailClosed = true } }

// WithOnStoreUnavailable calls fn for each call [Rate] decided without its
// [WithStore] store, with the store's error: the hook for a metric (a
// counter of decisions made without the store). A panic in fn is dropped.
func WithOnStoreUnavailable(fn func(ctx context.Context, err error)) Option {
	if fn == nil {
		panic("limit: WithOnStoreUnavailable with a nil function")
	}
	return func(o *options) { o.storeOpts.OnUnavailable = fn }
}

// rate is how [Rate] decides a call of tool by key: from the in-process
// buckets, or through the store of [WithStore].
func (o *options) rate(r rate.Limit, burst int) func(ctx context.Context, tool, key string) error {
	so := o.storeOpts
	so.Logger = o.logger
	return core.Decider(o.store, r, burst, o.maxKeys, so)
}
