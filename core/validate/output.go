package validate

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"sync/atomic"
)

// OutputSchemaOf returns the JSON Schema derived from Out's tags: the
// outputSchema the fronts advertise (the mcp-go validate.OutputSchema,
// gosdk.AddTool). The returned bytes are a copy.
func OutputSchemaOf[Out any](opts ...Option) json.RawMessage {
	o := evaluate(opts)
	return slices.Clone(outputPlanFor(reflect.TypeFor[Out](), o.validator).schema)
}

// Output holds the results of type Out to the output schema derived from
// Out's tags ([OutputSchemaOf]). Each SDK front's typed handler wraps one.
// It is safe for concurrent use.
type Output[Out any] struct {
	v    *Validator
	plan atomic.Pointer[plan]
}

// NewOutput returns an Output for Out configured by opts. It panics if Out
// is neither a struct nor a pointer to one, or its tags cannot work.
func NewOutput[Out any](opts ...Option) *Output[Out] {
	o := &Output[Out]{v: evaluate(opts).validator}
	o.plan.Store(outputPlanFor(reflect.TypeFor[Out](), o.v))
	return o
}

func (o *Output[Out]) current() *plan {
	p := o.plan.Load()
	if !p.fresh() {
		p = outputPlanFor(reflect.TypeFor[Out](), o.v)
		o.plan.Store(p)
	}
	return p
}

// Schema returns Out's output schema, as [OutputSchemaOf] does, without
// copying it: the caller must not modify it.
func (o *Output[Out]) Schema() json.RawMessage { return o.current().schema }

// Constrained reports whether Out's validate tags say more than its Go
// types do, anywhere in it: then its schema states enum, bounds, lengths
// or patterns that a schema inferred from the types alone would miss.
func (o *Output[Out]) Constrained() bool { return constrained(o.current().root, map[*typeInfo]bool{}) }

func constrained(ti *typeInfo, seen map[*typeInfo]bool) bool {
	if ti == nil || seen[ti] {
		return false
	}
	seen[ti] = true
	for _, f := range ti.fields {
		if f.tag != "" && f.tag != "-" || constrained(f.typ, seen) || constrained(f.embedded, seen) {
			return true
		}
	}
	return constrained(ti.elem, seen)
}

// Check holds v to Out's output schema and returns its JSON: an error
// says that v must not be sent (a validate tag it breaks, a nil pointer, a
// value encoding/json cannot write).
func (o *Output[Out]) Check(ctx context.Context, v Out) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, errors.New("the result is nil")
	}
	verr, panicked := validateStruct(ctx, o.current().v, v)
	if panicked != nil {
		return nil, panicked
	}
	if verr != nil {
		return nil, verr
	}
	return json.Marshal(v)
}
