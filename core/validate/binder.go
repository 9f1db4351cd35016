package validate

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync/atomic"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// Binder binds and validates the arguments of one type T. Each SDK front
// wraps one (the mcp-go validate.Args and validate.Handler, gosdk.AddTool)
// and renders the errors it returns with its own renderer. It is safe for
// concurrent use.
type Binder[T any] struct {
	o    options
	plan atomic.Pointer[plan]
}

// NewBinder returns a binder for T configured by opts. It panics if T is
// not a struct or its tags cannot work, so that misconfiguration fails at
// start-up.
func NewBinder[T any](opts ...Option) *Binder[T] {
	b := &Binder[T]{o: evaluate(opts)}
	b.plan.Store(planFor(reflect.TypeFor[T](), b.o.validator))
	return b
}

// EnvelopeOptions returns the envelope options the binder was configured
// with ([WithEnvelopeOptions]): a front renders the binder's errors with
// them when there are any.
func (b *Binder[T]) EnvelopeOptions() []envelope.Option { return b.o.envelope }

// Schema returns T's input schema, as [Schema] does, without copying it:
// the caller must not modify it.
func (b *Binder[T]) Schema() json.RawMessage { return b.current().schema }

func (b *Binder[T]) current() *plan {
	p := b.plan.Load()
	if !p.fresh() {
		p = planFor(reflect.TypeFor[T](), b.o.validator)
		b.plan.Store(p)
	}
	return p
}

// Bind binds a call's arguments into a new T and validates it. args are
// the arguments as the SDK received them: json.RawMessage or []byte, or a
// decoded value, which is encoded again; nil is an empty object. red
// redacts the previews of values in field errors (nil: redact.Default());
// tool names the call in the log of coercions.
//
// On failure the error is an envelope.Error with code validation_error
// and the violations as its fields, or, when validator/v10 itself fails,
// an unclassified error: render it with the front's renderer.
func (b *Binder[T]) Bind(ctx context.Context, tool string, args any, red *redact.Redactor) (*T, error) {
	p := b.current()
	dst := new(T)
	raw, err := rawArguments(args)
	if err != nil {
		return nil, b.fail([]envelope.FieldError{{Rule: "type", Param: "object", Message: "the arguments must be a JSON object"}}, 0)
	}
	br := p.bind(raw, dst, &b.o)
	fields, more := br.fields, br.more
	if !br.fatal {
		if p.root.hasEmbPtr {
			fillEmbedded(reflect.ValueOf(dst), p.root)
		}
		verr, panicked := validateStruct(ctx, p.v, dst)
		if panicked != nil {
			return nil, panicked
		}
		if verr != nil {
			if red == nil {
				red = redact.Default()
			}
			fe, n := p.fieldErrors(verr, br.bad, raw, MaxFieldErrors-len(fields), red.ForCall(raw))
			if fe == nil && n == 0 && validationErrors(verr) == nil {
				// Not a field error: validator/v10 refused the value itself.
				return nil, fmt.Errorf("validate: %w", verr)
			}
			fields = append(fields, fe...)
			more += n
		}
	}
	if len(fields) == 0 {
		if len(br.coerced) > 0 {
			b.logCoerced(ctx, tool, br.coerced)
		}
		return dst, nil
	}
	return nil, b.fail(fields, more)
}

func validateStruct(ctx context.Context, v *Validator, args any) (err error, panicked error) {
	defer func() {
		if p := recover(); p != nil {
			panicked = fmt.Errorf("validate: validator/v10 panicked: %s", redact.String(safe.Value(p)))
		}
	}()
	return v.v.StructCtx(ctx, args), nil
}

// logCoerced records which members WithCoercion turned from strings into
// numbers or booleans: for the operator, never for the agent.
func (b *Binder[T]) logCoerced(ctx context.Context, tool string, paths []string) {
	const shown = 10
	list := strings.Join(paths[:min(len(paths), shown)], ",")
	if len(paths) > shown {
		list += fmt.Sprintf(",… (%d in all)", len(paths))
	}
	safe.Log(ctx, b.o.logger, slog.LevelInfo, "mcpguard: coerced string arguments",
		slog.String(logkey.Tool, tool),
		slog.String("coerced", list))
}

// fail is a validation_error listing fields, and one more entry counting
// the more violations left out.
func (b *Binder[T]) fail(fields []envelope.FieldError, more int) error {
	return fieldsFail(fields, more)
}
