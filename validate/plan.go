package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// plan is everything derived from one argument type for one Validator:
// computed once, shared by every call and every tool using the type.
type plan struct {
	v      *Validator
	gen    uint64
	root   *typeInfo
	flat   map[string]flatField // the fast decoder's fields, or nil
	schema json.RawMessage
	notes  []string
}

type planKey struct {
	t      reflect.Type
	v      *Validator
	gen    uint64
	output bool
}

var plans sync.Map // planKey -> *plan

// planFor returns the plan for t's arguments, deriving it on first use.
// It panics on a type or tags that cannot work, so misconfiguration fails
// at start-up.
func planFor(t reflect.Type, v *Validator) *plan { return derive(t, v, false) }

// outputPlanFor is planFor for a result that encoding/json writes: t may
// also be a pointer to a struct.
func outputPlanFor(t reflect.Type, v *Validator) *plan { return derive(t, v, true) }

func derive(t reflect.Type, v *Validator, output bool) *plan {
	key := planKey{t: t, v: v, gen: v.gen.Load(), output: output}
	if p, ok := plans.Load(key); ok {
		return p.(*plan)
	}
	st := t
	if output && st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() != reflect.Struct {
		what := "arguments"
		if output {
			what = "results"
		}
		panic(fmt.Sprintf("validate: %s must be a struct type, not %s", what, t))
	}
	root := buildType(st, map[reflect.Type]bool{})
	g := &schemaGen{v: v, output: output, zeroRun: map[*typeInfo]map[*fieldInfo]bool{}}
	s := g.root(root)
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("validate: deriving the schema of %s: %v", t, err))
	}
	p := &plan{v: v, gen: key.gen, root: root, schema: raw, notes: sortedNotes(g.notes)}
	if !output {
		p.flat = flatPlan(root)
	}
	actual, _ := plans.LoadOrStore(key, p)
	return actual.(*plan)
}

// fresh reports whether no pattern was registered since p was derived.
func (p *plan) fresh() bool { return p.gen == p.v.gen.Load() }

// Schema returns the JSON Schema derived from T's json, jsonschema and
// validate tags: the schema [InputSchema] advertises. It is derived once
// per type and Validator; the returned bytes are a copy.
func Schema[T any](opts ...Option) json.RawMessage {
	o := evaluate(opts)
	return slices.Clone(planFor(reflect.TypeFor[T](), o.validator).schema)
}

// InputSchema sets a tool's input schema to the one derived from T (see
// [Schema]), for use with mcp.NewTool:
//
//	mcp.NewTool("shop_search", mcp.WithDescription("..."), validate.InputSchema[SearchArgs]())
//
// It keeps the descriptions that jsonschema tags give, as mcp-go's
// WithInputSchema does, and adds what the validate tags say: required
// members, enum, numeric bounds, lengths, item counts, uniqueItems,
// formats, patterns, nested objects and additionalProperties: false. A tag
// JSON Schema cannot state is named in the property's description and
// listed by [RuntimeOnly].
//
// It composes with mcp-go's other tool options in either order: it fills
// the tool's structured InputSchema (T's properties first, in declaration
// order) rather than replacing it, so a property that mcp.WithString and
// the like add before or after is kept. Such a property is not a field of
// T, though, so [Args] for T refuses it as an unknown member: add a field
// to T instead wherever Args checks the tool. A property that both T and
// an earlier option declare panics, as does an earlier raw schema
// (mcp.WithInputSchema, mcp.WithRawInputSchema), which would hide T's.
//
// It panics if T is not a struct or its tags cannot work, when the option
// is built rather than when a client asks.
func InputSchema[T any](opts ...Option) mcp.ToolOption {
	o := evaluate(opts)
	p := planFor(reflect.TypeFor[T](), o.validator)
	return func(t *mcp.Tool) {
		if !p.fresh() {
			p = planFor(reflect.TypeFor[T](), o.validator)
		}
		if t.RawInputSchema != nil {
			panic(fmt.Sprintf("validate: InputSchema[%s] on tool %q: the tool already has a raw input schema "+
				"(mcp.WithInputSchema or mcp.WithRawInputSchema); use only one of them", reflect.TypeFor[T](), t.Name))
		}
		var s mcp.ToolInputSchema
		if err := decodeNumbers(p.schema, &s); err != nil {
			panic(fmt.Sprintf("validate: InputSchema[%s]: %v", reflect.TypeFor[T](), err))
		}
		earlier := slices.Sorted(maps.Keys(t.InputSchema.Properties))
		for _, name := range earlier {
			if _, dup := s.Properties[name]; dup {
				panic(fmt.Sprintf("validate: InputSchema[%s] on tool %q: property %q is also declared by an earlier tool option; "+
					"describe it on the struct field (jsonschema and validate tags) and drop the option", reflect.TypeFor[T](), t.Name, name))
			}
			s.Properties[name] = t.InputSchema.Properties[name]
			s.PropertyOrder = append(s.PropertyOrder, name)
		}
		for _, name := range t.InputSchema.Required {
			if !slices.Contains(s.Required, name) {
				s.Required = append(s.Required, name)
			}
		}
		s.Defs = t.InputSchema.Defs
		t.InputSchema = s
	}
}

// decodeNumbers decodes a derived schema keeping numbers exact.
func decodeNumbers(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// RuntimeOnly lists the constraints on T that the derived schema cannot
// state, as "path: tag" (e.g. "code: startswith=SKU-"), sorted. They are
// still checked by [Args] and [Handler]; clients just cannot check them
// beforehand.
func RuntimeOnly[T any](opts ...Option) []string {
	o := evaluate(opts)
	return slices.Clone(planFor(reflect.TypeFor[T](), o.validator).notes)
}
