package validate

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// interpreted lists the validate tags this package understands, either as
// JSON Schema keywords or as structure (required, omitempty, dive, ...).
// Any other tag is runtime-only: checked by validator/v10, stated in the
// property's description and listed by RuntimeOnly.
var interpreted = map[string]struct{}{
	"required": {}, "omitempty": {}, "omitnil": {}, "omitzero": {}, "dive": {}, "keys": {}, "endkeys": {},
	"structonly": {}, "nostructlevel": {},
	"min": {}, "max": {}, "len": {}, "gt": {}, "gte": {}, "lt": {}, "lte": {}, "eq": {}, "ne": {},
	"oneof": {}, "unique": {}, "email": {}, "uuid": {}, "url": {}, "datetime": {},
	"alpha": {}, "alphanum": {}, "numeric": {}, "number": {}, "hexadecimal": {},
}

// bakedPatterns are validator/v10's own expressions for these tags, copied
// verbatim so that the schema's pattern and the runtime check agree; the
// differential test holds them to it.
var bakedPatterns = map[string]string{
	"alpha":       "^[a-zA-Z]+$",
	"alphanum":    "^[a-zA-Z0-9]+$",
	"numeric":     "^[-+]?[0-9]+(?:\\.[0-9]+)?$",
	"number":      "^[0-9]+$",
	"hexadecimal": "^(0[xX])?[0-9a-fA-F]+$",
	"uuid":        "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
}

// schemaGen derives a JSON Schema from a type's tags.
type schemaGen struct {
	v *Validator
	// output derives the schema of a result that encoding/json writes
	// (OutputSchema), rather than of arguments that are bound.
	output  bool
	notes   []string
	zeroRun map[*typeInfo]map[*fieldInfo]bool
}

func (g *schemaGen) root(ti *typeInfo) *obj {
	return g.object(ti, true, "")
}

// object is a struct's schema. constrained says whether validator/v10
// validates this struct's fields here (it does not inside a slice without
// "dive", for instance): if not, the schema states types and presence only.
func (g *schemaGen) object(ti *typeInfo, constrained bool, path string) *obj {
	s := &obj{}
	s.set("type", "object")
	props := &obj{}
	var required []string
	fails := map[*fieldInfo]bool{}
	if constrained {
		fails = g.zeroFailures(ti)
	}
	for _, f := range ti.fields {
		fc := constrained && !f.lvl.skip
		req := g.required(f, fc && fails[f])
		p := g.value(f.typ, f.lvl, fc, join(path, f.jsonName), memberOf(f, req))
		if f.desc != "" {
			if d, ok := p.get("description"); ok {
				p.set("description", f.desc+" "+d.(string))
			} else {
				p.set("description", f.desc)
			}
			// Keep the description first, where a reader looks.
			d, _ := p.get("description")
			p.del("description")
			p.keys = append([]string{"description"}, p.keys...)
			p.vals = append([]any{d}, p.vals...)
		}
		props.set(f.jsonName, p)
		if req {
			required = append(required, f.jsonName)
		}
	}
	s.set("properties", props)
	if len(required) > 0 {
		s.set("required", required)
	}
	s.set("additionalProperties", false)
	return s
}

// required reports whether f is in its object's "required" list. For
// arguments: a member that must be present (see fieldInfo.present), or one
// whose absence validator/v10 refuses. For results: every member that
// encoding/json always writes.
func (g *schemaGen) required(f *fieldInfo, zeroFails bool) bool {
	if g.output {
		return !f.omit && !f.viaPtr
	}
	return f.present || zeroFails
}

// member says where a value sits: an element or map value, a required
// member, or an optional one.
type member uint8

const (
	element member = iota
	requiredMember
	optionalMember
)

func memberOf(f *fieldInfo, required bool) member {
	if required {
		return requiredMember
	}
	return optionalMember
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// zeroFailures reports which of a struct's fields validator/v10 rejects
// when the struct is zero. Since an absent member leaves its field zero,
// exactly those fields are required in the schema: "required" itself, and
// also e.g. min=1 on an int without omitempty.
func (g *schemaGen) zeroFailures(ti *typeInfo) map[*fieldInfo]bool {
	if m, ok := g.zeroRun[ti]; ok {
		return m
	}
	m := map[*fieldInfo]bool{}
	g.zeroRun[ti] = m
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				panic(fmt.Sprintf("validate: validator/v10 panics on %s's tags: %v", ti.rt, p))
			}
		}()
		z := reflect.New(ti.rt)
		fillEmbedded(z, ti)
		err = g.v.v.Struct(z.Interface())
	}()
	for _, fe := range validationErrors(err) {
		if f := firstField(ti, fe.StructNamespace()); f != nil {
			m[f] = true
		}
	}
	return m
}

// value is the schema of one value at one tag level. lvl may be nil.
func (g *schemaGen) value(ti *typeInfo, lvl *level, constrained bool, path string, m member) *obj {
	if lvl == nil || !constrained {
		lvl, constrained = &level{}, false
	}
	s := &obj{}
	var typ string
	switch ti.kind {
	case kString:
		typ = "string"
	case kTime:
		typ = "string"
		s.set("format", "date-time")
		s.set("pattern", dateTimePattern)
	case kBool:
		typ = "boolean"
	case kInt, kUint:
		typ = "integer"
		// Only a narrower type's range says something; ±2^63 is noise.
		lo, hi := intRange(ti)
		if ti.kind == kUint {
			s.set("minimum", lo)
		}
		if ti.bits < 64 {
			if ti.kind == kInt {
				s.set("minimum", lo)
			}
			s.set("maximum", hi)
		}
	case kFloat:
		typ = "number"
		if ti.bits == 32 {
			s.set("minimum", json.Number(strconv.FormatFloat(-math.MaxFloat32, 'g', -1, 64)))
			s.set("maximum", json.Number(strconv.FormatFloat(math.MaxFloat32, 'g', -1, 64)))
		}
	case kSlice:
		typ = "array"
		if lvl.dive != nil {
			s.set("items", g.value(ti.elem, lvl.dive, constrained, path+"[]", element))
		} else {
			s.set("items", g.value(ti.elem, nil, false, path+"[]", element))
		}
	case kMap:
		typ = "object"
		if lvl.dive != nil {
			if k := lvl.dive.keys; k != nil {
				s.set("propertyNames", g.value(&typeInfo{kind: kString}, k, constrained, path+"{}", element))
			}
			s.set("additionalProperties", g.value(ti.elem, lvl.dive, constrained, path+"{}", element))
		} else {
			s.set("additionalProperties", g.value(ti.elem, nil, false, path+"{}", element))
		}
	case kStruct:
		s = g.object(ti, constrained && !lvl.noStruct, path)
	case kAny:
		// Anything goes, null included.
	}
	nullable := g.nullable(ti, lvl, constrained, m)
	if typ != "" {
		if nullable {
			s.set("type", []string{typ, "null"})
		} else {
			s.set("type", typ)
		}
		// The type first, for readers.
		t, _ := s.get("type")
		s.del("type")
		s.keys = append([]string{"type"}, s.keys...)
		s.vals = append([]any{t}, s.vals...)
	} else if nullable && ti.kind == kStruct {
		s.set("type", []string{"object", "null"})
	}
	if constrained {
		g.constrain(s, ti, lvl, path, m)
	}
	return s
}

// constrain adds to s, the schema of a value, what lvl's tags say.
func (g *schemaGen) constrain(s *obj, ti *typeInfo, lvl *level, path string, m member) {
	c := &obj{}
	var notes []string
	for _, r := range lvl.rules {
		if !g.rule(c, ti, r) {
			notes = append(notes, r.raw)
		}
	}
	if lvl.required && ti.kind == kAny && ti.nullable {
		// A nil pointer or interface fails "required": null does.
		c.set("not", &obj{keys: []string{"type"}, vals: []any{"null"}})
	}
	if lvl.required && !ti.nullable {
		switch ti.kind {
		case kString:
			tighten(c, "minLength", json.Number("1"), true)
		case kInt, kUint, kFloat:
			c.set("not", &obj{keys: []string{"const"}, vals: []any{0}})
		case kBool:
			c.set("const", true)
		case kTime:
			notes = append(notes, "required")
		}
	}
	if c.len() > 0 {
		if m != optionalMember && lvl.omitempty && !ti.nullable && ti.kind != kSlice && ti.kind != kMap && ti.kind != kStruct && g.zeroFails(ti, lvl) {
			// omitempty skips the checks for the zero value, which JSON
			// Schema can only say as an alternative. An optional member
			// needs none: its zero means "absent" (see the package doc).
			s.set("anyOf", []any{&obj{keys: []string{"const"}, vals: []any{zeroJSON(ti)}}, c})
			// The type's own range is redundant where the alternatives
			// bound tighter (zero is always in range).
			dropIfInside(s, c, "minimum", true, "minimum", "exclusiveMinimum")
			dropIfInside(s, c, "maximum", false, "maximum", "exclusiveMaximum")
		} else {
			for i, k := range c.keys {
				mergeKeyword(s, k, c.vals[i])
			}
		}
	}
	if len(notes) > 0 {
		for _, n := range notes {
			g.notes = append(g.notes, path+": "+n)
		}
		s.set("description", "Also checked when called: "+strings.Join(notes, ", ")+".")
	}
}

// nullable reports whether the schema admits null for a value. Arguments:
// no member advertises null (an optional member sent as null counts as
// absent), elements of pointer type do. Results: what encoding/json can
// write as null, unless a tag forbids it.
func (g *schemaGen) nullable(ti *typeInfo, lvl *level, constrained bool, m member) bool {
	if ti.kind == kAny {
		return false // stated by the absence of "type"
	}
	var can bool
	switch {
	case g.output:
		can = m != optionalMember && (ti.nullable || ti.kind == kSlice || ti.kind == kMap)
	case m == element:
		can = ti.nullable
	}
	if can && constrained && !lvl.omitempty && (lvl.required || len(lvl.rules) > 0 || lvl.dive != nil) {
		// validator/v10 fails a nil pointer on any tag but omitempty.
		if ti.nullable || lvl.required {
			can = false
		}
	}
	return can
}

// zeroFails reports whether the zero value fails lvl's rules once
// omitempty is taken away.
func (g *schemaGen) zeroFails(ti *typeInfo, lvl *level) (fails bool) {
	var tags []string
	for _, r := range lvl.rules {
		tags = append(tags, r.raw)
	}
	if lvl.required {
		tags = append(tags, "required")
	}
	defer func() {
		if recover() != nil {
			fails = true
		}
	}()
	return g.v.v.Var(reflect.Zero(ti.rt).Interface(), strings.Join(tags, ",")) != nil
}

func zeroJSON(ti *typeInfo) any {
	switch ti.kind {
	case kString:
		return ""
	case kBool:
		return false
	case kTime:
		return time.Time{}.Format(time.RFC3339Nano)
	default:
		return 0
	}
}

// mergeKeyword sets k in s, keeping the tighter of two numeric bounds.
func mergeKeyword(s *obj, k string, v any) {
	switch k {
	case "minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties":
		if n, ok := v.(json.Number); ok {
			tighten(s, k, n, true)
			return
		}
	case "maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties":
		if n, ok := v.(json.Number); ok {
			tighten(s, k, n, false)
			return
		}
	}
	s.set(k, v)
}

// dropIfInside deletes outer keyword k when one of inner's keywords bounds
// at least as tightly.
func dropIfInside(outer, inner *obj, k string, lower bool, innerKeys ...string) {
	ov, ok := outer.get(k)
	if !ok {
		return
	}
	on, _ := ov.(json.Number)
	a, ok := new(big.Rat).SetString(string(on))
	if !ok {
		return
	}
	for _, ik := range innerKeys {
		iv, ok := inner.get(ik)
		if !ok {
			continue
		}
		in, _ := iv.(json.Number)
		if b, ok := new(big.Rat).SetString(string(in)); ok && (lower && b.Cmp(a) >= 0 || !lower && b.Cmp(a) <= 0) {
			outer.del(k)
			return
		}
	}
}

func tighten(s *obj, k string, n json.Number, lower bool) {
	if old, ok := s.get(k); ok {
		if on, ok := old.(json.Number); ok {
			a, _ := new(big.Rat).SetString(string(on))
			b, _ := new(big.Rat).SetString(string(n))
			if a != nil && b != nil && (lower && a.Cmp(b) >= 0 || !lower && a.Cmp(b) <= 0) {
				return
			}
		}
	}
	s.set(k, n)
}

func intRange(ti *typeInfo) (lo, hi json.Number) {
	if ti.kind == kUint {
		return "0", json.Number(strconv.FormatUint(uint64(1)<<(ti.bits-1)*2-1, 10))
	}
	return json.Number(strconv.FormatInt(-1<<(ti.bits-1), 10)), json.Number(strconv.FormatInt(1<<(ti.bits-1)-1, 10))
}

// rule adds the keywords for one tag to c, or reports false for a tag that
// JSON Schema cannot state.
func (g *schemaGen) rule(c *obj, ti *typeInfo, r rule) bool {
	switch r.name {
	case "min", "gte", "max", "lte", "gt", "lt", "len":
		if ti.kind == kInt || ti.kind == kUint || ti.kind == kFloat {
			return g.numericBound(c, ti, r)
		}
		if lower, upper, ok := lengthKeywords(ti.kind); ok {
			return lengthBound(c, r, lower, upper)
		}
		return false
	case "eq", "ne":
		return g.equality(c, ti, r)
	case "oneof":
		return enumeration(c, ti, r)
	case "unique":
		if ti.kind == kSlice && r.param == "" && comparableElem(ti.elem) {
			c.set("uniqueItems", true)
			return true
		}
		return false
	case "email", "url":
		// validator/v10's email and url checks and JSON Schema's
		// "email" and "uri" formats disagree at the edges (a@b, http://),
		// so the schema does not claim them: they are runtime-only.
		return false
	}
	return g.stringFormat(c, ti, r)
}

// numericKeywords are the keywords the bound tags set on a number.
var numericKeywords = map[string]string{
	"min": "minimum", "gte": "minimum", "max": "maximum", "lte": "maximum",
	"gt": "exclusiveMinimum", "lt": "exclusiveMaximum",
}

// numericBound states a bound tag on a number: len is the value itself.
func (g *schemaGen) numericBound(c *obj, ti *typeInfo, r rule) bool {
	n := g.number(ti, r)
	if r.name == "len" {
		c.set("const", n)
		return true
	}
	mergeKeyword(c, numericKeywords[r.name], n)
	return true
}

// lengthKeywords are the keywords that bound the size of a string, an
// array or an object.
func lengthKeywords(k kind) (lower, upper string, ok bool) {
	switch k {
	case kString:
		return "minLength", "maxLength", true
	case kSlice:
		return "minItems", "maxItems", true
	case kMap:
		return "minProperties", "maxProperties", true
	}
	return "", "", false
}

// lengthBound states a bound tag on a size: gt and lt are one more and
// one less, len both bounds.
func lengthBound(c *obj, r rule, lower, upper string) bool {
	switch r.name {
	case "gt":
		return size(c, r, lower, 1, true)
	case "lt":
		return size(c, r, upper, -1, false)
	case "len":
		return exactSize(c, r, lower, upper)
	case "min", "gte":
		return size(c, r, lower, 0, true)
	}
	return size(c, r, upper, 0, false)
}

// exactSize states a size of exactly r's parameter.
func exactSize(c *obj, r rule, lower, upper string) bool {
	return size(c, r, lower, 0, true) && size(c, r, upper, 0, false)
}

// size sets the size keyword kw to r's integer parameter plus delta,
// unless that is negative, which no size can be.
func size(c *obj, r rule, kw string, delta int64, lower bool) bool {
	n, err := strconv.ParseInt(r.param, 0, 64)
	if err != nil {
		panic(fmt.Sprintf("validate: %s=%s needs an integer", r.name, r.param))
	}
	n += delta
	if n < 0 {
		return false
	}
	tighten(c, kw, json.Number(strconv.FormatInt(n, 10)), lower)
	return true
}

// equality states eq and ne: a value for scalars, a size for arrays and
// objects (eq only).
func (g *schemaGen) equality(c *obj, ti *typeInfo, r rule) bool {
	var v any
	switch ti.kind {
	case kString:
		v = r.param
	case kInt, kUint, kFloat:
		v = g.number(ti, r)
	case kBool:
		b, err := strconv.ParseBool(r.param)
		if err != nil {
			return false
		}
		v = b
	case kSlice, kMap:
		if r.name != "eq" {
			return false
		}
		lower, upper, _ := lengthKeywords(ti.kind)
		return exactSize(c, r, lower, upper)
	default:
		return false
	}
	if r.name == "eq" {
		c.set("const", v)
	} else {
		c.set("not", &obj{keys: []string{"const"}, vals: []any{v}})
	}
	return true
}

// enumeration states oneof on strings and integers.
func enumeration(c *obj, ti *typeInfo, r rule) bool {
	vals := oneofValues(r.param)
	switch ti.kind {
	case kString:
		c.set("enum", vals)
		return true
	case kInt, kUint:
		enum := []any{}
		for _, v := range vals {
			// validator/v10 compares decimal renderings, so "01" or
			// "+1" can never match; leave them out.
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && strconv.FormatInt(n, 10) == v {
				enum = append(enum, json.Number(v))
			} else if n, err := strconv.ParseUint(v, 10, 64); err == nil && strconv.FormatUint(n, 10) == v {
				enum = append(enum, json.Number(v))
			}
		}
		c.set("enum", enum)
		return true
	}
	return false
}

// stringFormat states the tags that are formats or patterns of strings:
// uuid, a date-only datetime, validator/v10's baked-in expressions and
// the named patterns of the Validator. A named pattern on another type
// cannot work, and panics.
func (g *schemaGen) stringFormat(c *obj, ti *typeInfo, r rule) bool {
	str := ti.kind == kString
	switch r.name {
	case "uuid":
		if !str {
			return false
		}
		c.set("format", "uuid")
		addPattern(c, bakedPatterns["uuid"])
		return true
	case "datetime":
		// RFC 3339 strings are not advertised: Go's parser and the
		// "date-time" format disagree on leap seconds, lower-case t
		// and z, and +24:00. A time.Time field is held to both.
		if str && r.param == time.DateOnly {
			c.set("format", "date")
			return true
		}
		return false
	case "alpha", "alphanum", "numeric", "number", "hexadecimal":
		if !str {
			return false
		}
		addPattern(c, bakedPatterns[r.name])
		return true
	}
	p := g.v.pattern(r.name)
	if p == nil {
		return false
	}
	if !str {
		panic(fmt.Sprintf("validate: pattern tag %q is for strings, not %s", r.name, ti.rt))
	}
	addPattern(c, p.expr)
	return true
}

// comparableElem reports whether JSON Schema's uniqueItems (deep JSON
// equality) means what validator/v10's unique (Go ==) does for elements of
// this type.
func comparableElem(ti *typeInfo) bool {
	switch ti.kind {
	case kString, kBool, kInt, kUint:
		return !ti.nullable
	}
	return false
}

func addPattern(c *obj, expr string) {
	if _, ok := c.get("pattern"); !ok {
		c.set("pattern", expr)
		return
	}
	all, _ := c.get("allOf")
	list, _ := all.([]any)
	c.set("allOf", append(list, &obj{keys: []string{"pattern"}, vals: []any{expr}}))
}

// number parses a numeric tag parameter as validator/v10 would for ti,
// panicking where validator/v10 would panic at call time.
func (g *schemaGen) number(ti *typeInfo, r rule) json.Number {
	switch ti.kind {
	case kInt:
		n, err := strconv.ParseInt(r.param, 0, 64)
		if err != nil {
			panic(fmt.Sprintf("validate: %s=%s needs an integer", r.name, r.param))
		}
		return json.Number(strconv.FormatInt(n, 10))
	case kUint:
		n, err := strconv.ParseUint(r.param, 0, 64)
		if err != nil {
			panic(fmt.Sprintf("validate: %s=%s needs an unsigned integer", r.name, r.param))
		}
		return json.Number(strconv.FormatUint(n, 10))
	default:
		f, err := strconv.ParseFloat(r.param, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			panic(fmt.Sprintf("validate: %s=%s needs a number", r.name, r.param))
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	}
}

// sortedNotes returns the runtime-only notes in a stable order.
func sortedNotes(n []string) []string {
	out := slices.Clone(n)
	slices.Sort(out)
	return out
}
