package validate

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"
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
	actual, _ := plans.LoadOrStore(key, p)
	return actual.(*plan)
}

// fresh reports whether no pattern was registered since p was derived.
func (p *plan) fresh() bool { return p.gen == p.v.gen.Load() }

// Schema returns the JSON Schema derived from T's json, jsonschema and
// validate tags: the input schema the fronts advertise (the mcp-go
// validate.InputSchema, gosdk.AddTool). It is derived once
// per type and Validator; the returned bytes are a copy.
func Schema[T any](opts ...Option) json.RawMessage {
	o := evaluate(opts)
	return slices.Clone(planFor(reflect.TypeFor[T](), o.validator).schema)
}

// RuntimeOnly lists the constraints on T that the derived schema cannot
// state, as "path: tag" (e.g. "code: startswith=SKU-"), sorted. They are
// still checked by [Binder.Bind]; clients just cannot check them
// beforehand.
func RuntimeOnly[T any](opts ...Option) []string {
	o := evaluate(opts)
	return slices.Clone(planFor(reflect.TypeFor[T](), o.validator).notes)
}
