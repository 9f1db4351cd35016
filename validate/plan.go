package validate

import (
	"encoding/json"
	"fmt"
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
	schema json.RawMessage
	notes  []string
}

type planKey struct {
	t   reflect.Type
	v   *Validator
	gen uint64
}

var plans sync.Map // planKey -> *plan

// planFor returns the plan for t, deriving it on first use. It panics on a
// type or tags that cannot work, so misconfiguration fails at start-up.
func planFor(t reflect.Type, v *Validator) *plan {
	key := planKey{t: t, v: v, gen: v.gen.Load()}
	if p, ok := plans.Load(key); ok {
		return p.(*plan)
	}
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("validate: arguments must be a struct type, not %s", t))
	}
	root := buildType(t, map[reflect.Type]bool{})
	g := &schemaGen{v: v, zeroRun: map[*typeInfo]map[*fieldInfo]bool{}}
	s := g.root(root)
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("validate: deriving the schema of %s: %v", t, err))
	}
	p := &plan{v: v, gen: key.gen, root: root, schema: raw, notes: sortedNotes(g.notes)}
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
// It panics if T is not a struct or its tags cannot work, when the option
// is built rather than when a client asks.
func InputSchema[T any](opts ...Option) mcp.ToolOption {
	o := evaluate(opts)
	p := planFor(reflect.TypeFor[T](), o.validator)
	return func(t *mcp.Tool) {
		if !p.fresh() {
			p = planFor(reflect.TypeFor[T](), o.validator)
		}
		t.InputSchema = mcp.ToolInputSchema{}
		t.RawInputSchema = slices.Clone(p.schema)
	}
}

// RuntimeOnly lists the constraints on T that the derived schema cannot
// state, as "path: tag" (e.g. "code: startswith=SKU-"), sorted. They are
// still checked by [Args] and [Handler]; clients just cannot check them
// beforehand.
func RuntimeOnly[T any](opts ...Option) []string {
	o := evaluate(opts)
	return slices.Clone(planFor(reflect.TypeFor[T](), o.validator).notes)
}
