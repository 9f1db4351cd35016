package validate

import (
	"context"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	core "github.com/mcpguard/mcpguard/core/validate"
	"github.com/mcpguard/mcpguard/envelope"
)

// ctxKey carries a *T validated by Args[T]; one key type per T, so ArgsFrom
// for a different type finds nothing.
type ctxKey[T any] struct{}

// ArgsFrom returns the arguments that [Args] bound and validated for this
// call. It reports false when no Args[T] layer ran for T.
func ArgsFrom[T any](ctx context.Context) (T, bool) {
	if p, ok := ctx.Value(ctxKey[T]{}).(*T); ok && p != nil {
		return *p, true
	}
	var zero T
	return zero, false
}

// binder is the mcp-go shell of the core's binder: it reads mcp-go's
// request and renders failures as mcp-go results.
type binder[T any] struct {
	c *core.Binder[T]
	// declared checks each tool's declared schema against T once.
	declared declaredCheck
	// overlay is the layer's own envelope options ([WithEnvelopeOptions]),
	// added to the chain's configuration; nil without any.
	overlay *envelope.Overlay
}

func newBinder[T any](opts []Option) *binder[T] {
	b := &binder[T]{c: core.NewBinder[T](opts...)}
	b.overlay = envelope.NewOverlay(b.c.EnvelopeOptions()...)
	return b
}

// bind returns the validated arguments, or the result to answer with.
func (b *binder[T]) bind(ctx context.Context, req mcp.CallToolRequest) (*T, *mcp.CallToolResult) {
	var args any = req.Params.Arguments
	if len(req.Params.RawArguments) > 0 {
		args = req.Params.RawArguments
	}
	chain := envelope.RendererFrom(ctx, nil)
	// The redactor of what this call renders, without allocating once the
	// layer has served a call of the chain.
	red := b.overlay.On(chain.Core()).Redactor()
	v, err := b.c.Bind(ctx, req.Params.Name, args, red)
	if err != nil {
		return nil, chain.Over(b.overlay).Error(ctx, req, err)
	}
	return v, nil
}

// renderer is the one the envelopes of this call are rendered with: the
// chain's (envelope.RendererFrom) with the layer's own options added.
func (b *binder[T]) renderer(ctx context.Context) *envelope.Renderer {
	return envelope.RendererFrom(ctx, nil).Over(b.overlay)
}

// Args validates a tool's arguments before its handler runs:
//
//  1. it binds the call's arguments into a T, strictly: unknown members,
//     wrong JSON types, non-object arguments, input nested deeper than
//     [WithMaxDepth] or larger than [WithMaxBytes] are refused;
//  2. it validates the T with validator/v10 and the struct's validate tags;
//  3. on success it calls the handler with the T in the context, for
//     [ArgsFrom] and [Handler];
//  4. on failure it answers with a validation_error envelope listing every
//     violation under "fields", by JSON path, with the rule, its bound,
//     the allowed values and a suggestion where one fits.
//
// The failure is an isError tool result even without the envelope layer,
// never a JSON-RPC error, and the handler does not run. Use it per tool:
//
//	s.AddTool(tool, middleware.Wrap(h, validate.Args[SearchArgs]()))
//	s.Use(middleware.ForTools(validate.Args[SearchArgs](), "shop_search"))
//
// At a tool's first call, Args compares the schema the tool declares in
// tools/list with T ([CheckTool]) and logs a disagreement once, as a
// warning: a global s.Use(validate.Args[T]()) on tools of other shapes,
// or a hand-written schema that drifted from T, shows in the log.
//
// T must be a struct; Args panics at construction on a type or tags that
// cannot work, such as an undefined validate tag.
func Args[T any](opts ...Option) server.ToolHandlerMiddleware {
	b := newBinder[T](opts)
	var made atomic.Int64
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		h := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			checkDeclared(ctx, &b.declared, b.c, req.Params.Name)
			args, res := b.bind(ctx, req)
			if res != nil {
				return res, nil
			}
			return next(context.WithValue(ctx, ctxKey[T]{}, args), req)
		}
		// The handlers middleware.Wrap makes at registration are recorded
		// as checking T; under s.Use mcp-go makes one per call, which no
		// tool is registered with: past the first few, they are not.
		if made.Add(1) <= maxRecordedHandlers {
			checkedBy(h, b.c)
		}
		return h
	}
}

// Handler adapts a typed handler to mcp-go. Under [Args] for the same T it
// reuses the validated value; alone, it binds and validates by itself with
// opts, answering failures as Args does.
//
// Unlike mcp-go's NewStructuredToolHandler, it returns fn's error as is, so
// errors.Is and the envelope layer further out still see sentinels such as
// envelope.ErrNotFound.
func Handler[T any](fn func(ctx context.Context, req mcp.CallToolRequest, args T) (*mcp.CallToolResult, error), opts ...Option) server.ToolHandlerFunc {
	if fn == nil {
		panic("validate: Handler(nil)")
	}
	b := newBinder[T](opts)
	return checkedBy(func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if args, ok := ctx.Value(ctxKey[T]{}).(*T); ok && args != nil {
			return fn(ctx, req, *args)
		}
		args, res := b.bind(ctx, req)
		if res != nil {
			return res, nil
		}
		return fn(ctx, req, *args)
	}, b.c)
}
