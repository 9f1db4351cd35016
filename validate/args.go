package validate

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/internal/safe"
	"github.com/mcpguard/mcpguard/redact"
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

// binder binds and validates one argument type.
type binder[T any] struct {
	o    options
	plan atomic.Pointer[plan]
	// renderer is set when the layer has envelope options of its own.
	renderer *envelope.Renderer
}

func newBinder[T any](opts []Option) *binder[T] {
	b := &binder[T]{o: evaluate(opts)}
	if len(b.o.envelope) > 0 {
		b.renderer = envelope.NewRenderer(b.o.envelope...)
	}
	b.plan.Store(planFor(reflect.TypeFor[T](), b.o.validator))
	return b
}

func (b *binder[T]) current() *plan {
	p := b.plan.Load()
	if !p.fresh() {
		p = planFor(reflect.TypeFor[T](), b.o.validator)
		b.plan.Store(p)
	}
	return p
}

// bind returns the validated arguments, or the result to answer with.
func (b *binder[T]) bind(ctx context.Context, req mcp.CallToolRequest) (*T, *mcp.CallToolResult) {
	p := b.current()
	args := new(T)
	raw, err := rawArguments(req)
	if err != nil {
		return nil, b.fail(ctx, req, []envelope.FieldError{{Rule: "type", Param: "object", Message: "the arguments must be a JSON object"}}, 0)
	}
	br := p.bind(raw, args, &b.o)
	fields, more := br.fields, br.more
	if !br.fatal {
		if p.root.hasEmbPtr {
			fillEmbedded(reflect.ValueOf(args), p.root)
		}
		verr, panicked := validateStruct(ctx, p.v, args)
		if panicked != nil {
			return nil, envelope.ErrorResult(ctx, req, panicked, b.o.envelope...)
		}
		if verr != nil {
			fe, n := p.fieldErrors(verr, br.bad, raw, MaxFieldErrors-len(fields), b.redactor(ctx).ForCall(raw))
			if fe == nil && n == 0 && validationErrors(verr) == nil {
				// Not a field error: validator/v10 refused the value itself.
				return nil, envelope.ErrorResult(ctx, req, fmt.Errorf("validate: %w", verr), b.o.envelope...)
			}
			fields = append(fields, fe...)
			more += n
		}
	}
	if len(fields) == 0 {
		if len(br.coerced) > 0 {
			b.logCoerced(ctx, req, br.coerced)
		}
		return args, nil
	}
	return nil, b.fail(ctx, req, fields, more)
}

func validateStruct(ctx context.Context, v *Validator, args any) (err error, panicked error) {
	defer func() {
		if p := recover(); p != nil {
			panicked = fmt.Errorf("validate: validator/v10 panicked: %s", redact.String(safe.Value(p)))
		}
	}()
	return v.v.StructCtx(ctx, args), nil
}

// redactor is the one the envelopes of this call are rendered with: the
// chain's (envelope.RendererFrom), or the one the layer's own envelope
// options configure.
func (b *binder[T]) redactor(ctx context.Context) *redact.Redactor {
	if b.renderer != nil {
		return b.renderer.Redactor()
	}
	return envelope.RendererFrom(ctx, nil).Redactor()
}

// logCoerced records which members WithCoercion turned from strings into
// numbers or booleans: for the operator, never for the agent.
func (b *binder[T]) logCoerced(ctx context.Context, req mcp.CallToolRequest, paths []string) {
	const shown = 10
	list := strings.Join(paths[:min(len(paths), shown)], ",")
	if len(paths) > shown {
		list += fmt.Sprintf(",… (%d in all)", len(paths))
	}
	safe.Log(ctx, b.o.logger, slog.LevelInfo, "mcpguard: coerced string arguments",
		slog.String("tool", req.Params.Name),
		slog.String("coerced", list))
}

// fail answers with a validation_error listing fields, and one more entry
// counting the more violations left out.
func (b *binder[T]) fail(ctx context.Context, req mcp.CallToolRequest, fields []envelope.FieldError, more int) *mcp.CallToolResult {
	for i := range fields {
		// Paths repeat the agent's keys, up to 64 characters a level:
		// deep ones are cut, so that each entry stays small.
		fields[i].Field = clip(fields[i].Field, maxPathRunes)
		fields[i].Message = clip(fields[i].Message, maxMessageRunes)
	}
	msg := summary(fields, len(fields)+more)
	if more > 0 {
		fields = append(fields, envelope.FieldError{
			Rule: "more", Param: strconv.Itoa(more),
			Message: fmt.Sprintf("%d more invalid arguments are not listed; fix these first", more),
		})
	}
	err := envelope.WithFields(envelope.New(envelope.ValidationError, msg), fields...)
	return envelope.ErrorResult(ctx, req, err, b.o.envelope...)
}

// Bounds on one field error's text, in runes.
const (
	maxPathRunes    = 160
	maxMessageRunes = 400
)

// summary is the envelope's message: the first few field messages, of
// total violations.
func summary(fields []envelope.FieldError, total int) string {
	const shown = 3
	var b strings.Builder
	if total == 1 {
		b.WriteString("Invalid argument: ")
	} else {
		fmt.Fprintf(&b, "%d invalid arguments: ", total)
	}
	for i, f := range fields {
		if i == shown {
			fmt.Fprintf(&b, "; and %d more (see fields)", total-shown)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(f.Message)
	}
	b.WriteByte('.')
	return b.String()
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
// T must be a struct; Args panics at construction on a type or tags that
// cannot work, such as an undefined validate tag.
func Args[T any](opts ...Option) server.ToolHandlerMiddleware {
	b := newBinder[T](opts)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args, res := b.bind(ctx, req)
			if res != nil {
				return res, nil
			}
			return next(context.WithValue(ctx, ctxKey[T]{}, args), req)
		}
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
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if args, ok := ctx.Value(ctxKey[T]{}).(*T); ok && args != nil {
			return fn(ctx, req, *args)
		}
		args, res := b.bind(ctx, req)
		if res != nil {
			return res, nil
		}
		return fn(ctx, req, *args)
	}
}
