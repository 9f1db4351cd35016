package recover

import (
	"context"
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"

	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/envelope"
)

// Option configures [Middleware].
type Option func(*options)

// Panic describes a recovered panic: the incident ID the client receives,
// the tool, the value and (unless [WithoutStack]) the stack. The value and
// the stack are for the server's log and callbacks only. It is the
// SDK-neutral core's type, shared with the go-sdk front.
type Panic = core.Panic

type options struct {
	logger   *slog.Logger
	onPanic  func(context.Context, mcp.CallToolRequest, Panic)
	stack    bool
	renderer *envelope.Renderer
}

func evaluate(opts []Option) options {
	o := options{stack: true}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.renderer == nil {
		o.renderer = envelope.NewRenderer()
	}
	return o
}

// WithRenderer renders the internal_error envelope of a recovered panic
// with r, so that it carries the messages and next steps the user
// configured for the chain. middleware.Default passes the chain's own
// Renderer; alone, the layer uses envelope.NewRenderer().
func WithRenderer(r *envelope.Renderer) Option {
	return func(o *options) {
		if r != nil {
			o.renderer = r
		}
	}
}

// WithLogger sets where panics are logged. The default is [slog.Default] at
// the time of the panic.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithoutStack leaves the stack out of the log record, for loggers that
// cannot take multi-kilobyte attributes.
func WithoutStack() Option { return func(o *options) { o.stack = false } }

// WithOnPanic calls fn after each recovered panic has been logged, to feed
// an error tracker or a metric. fn runs on the handler's goroutine; a panic
// inside it is recovered and logged too.
func WithOnPanic(fn func(ctx context.Context, req mcp.CallToolRequest, p Panic)) Option {
	return func(o *options) { o.onPanic = fn }
}
