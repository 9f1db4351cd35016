package limit

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	core "github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/envelope"
)

// Option configures [Timeout], [Rate] and [Concurrency]. An option that
// does not apply to a layer is ignored by it.
type Option func(*options)

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

type options struct {
	toolTimeouts map[string]time.Duration
	key          KeyFunc
	perTool      bool
	maxKeys      int
	maxWait      time.Duration
	envOpts      []envelope.Option
	logger       *slog.Logger
}

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
// shared by every tool behind the layer.
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

// WithEnvelopeOptions configures how refusals and timeouts are rendered:
// pass the options you give the envelope layer (logger, redactor, default
// next steps), so that a layer answering by itself answers the same way.
func WithEnvelopeOptions(opts ...envelope.Option) Option {
	return func(o *options) { o.envOpts = append(o.envOpts, opts...) }
}

// WithLogger sets where [Timeout] logs a handler that panicked after its
// deadline, when no caller is left to hand the panic to. The default is
// [slog.Default] at the time of the panic.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }
