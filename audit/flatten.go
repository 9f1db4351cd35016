package audit

// branch is an anyOf or oneOf alternative the walker checks as a node of
// its own: an object or array shape, which does not merge into its parent.
type branch struct {
	key    string // "anyOf" or "oneOf"
	i      int
	schema any
}

// flatten reads a schema node the way a validator applies it, so that
// every rule C check sees the constraints wherever the schema states them:
//
//   - allOf: each branch's constraints apply to the node, so they are
//     merged into it;
//   - anyOf / oneOf: branches that only admit null (how pydantic, FastMCP
//     and zod write Optional[...]) are dropped; when the rest are scalars
//     (strings, numbers, booleans, consts, enums), the node has a
//     constraint when every remaining branch has it: an enum when each is
//     an enum or const, a bound when each has it or is an enum or const,
//     and so on. Object and array alternatives are returned to be walked
//     as nodes of their own.
//
// A $ref inside a branch is followed (local references only). The node
// itself is never modified.
func (w *walker) flatten(m map[string]any) (map[string]any, []branch) {
	_, all := m["allOf"].([]any)
	_, any1 := m["anyOf"].([]any)
	_, one := m["oneOf"].([]any)
	if !all && !any1 && !one {
		return m, nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	if bs, ok := out["allOf"].([]any); ok {
		delete(out, "allOf")
		for _, b := range bs {
			if bm := w.deref(b); bm != nil {
				// Merging copies the branch's properties: work the
				// node bound counts, so that many wide branches cost
				// what many nodes do.
				w.nodes += len(bm) + len(asObject(bm["properties"]))
				mergeAllOf(out, bm)
			}
		}
	}
	var complexBranches []branch
	for _, key := range []string{"anyOf", "oneOf"} {
		bs, ok := out[key].([]any)
		if !ok {
			continue
		}
		delete(out, key)
		var scalars []map[string]any
		var rest []branch
		for i, b := range bs {
			bm := w.deref(b)
			switch {
			case bm == nil:
				rest = append(rest, branch{key, i, b}) // true, false, or a dangling $ref: reported as a node
			case onlyNull(bm):
			case scalar(bm):
				scalars = append(scalars, bm)
			default:
				rest = append(rest, branch{key, i, b})
			}
		}
		if len(rest) > 0 {
			complexBranches = append(complexBranches, rest...)
			for i, b := range bs { // walk the scalar ones too, as their own nodes
				if bm := w.deref(b); bm != nil && scalar(bm) && !onlyNull(bm) {
					complexBranches = append(complexBranches, branch{key, i, b})
				}
			}
			continue
		}
		combine(out, scalars)
	}
	return out, complexBranches
}

// deref returns a branch as an object, following a local $ref; nil if it
// is not an object or the reference does not resolve.
func (w *walker) deref(b any) map[string]any {
	m, ok := b.(map[string]any)
	if !ok {
		return nil
	}
	for range maxSchemaDepth {
		ref, isRef := m["$ref"].(string)
		if !isRef {
			return m
		}
		target, ok := w.resolve(ref)
		if !ok {
			return nil
		}
		merged := withTarget(target, m)
		if next, _ := target["$ref"].(string); next != "" {
			merged["$ref"] = next // a reference to a reference: follow it next
		}
		m = merged
	}
	return nil
}

// asObject returns v as an object, or nil.
func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// mergeAllOf adds an allOf branch's constraints to out: keys out lacks,
// properties of both, and required fields of both.
func mergeAllOf(out, b map[string]any) {
	for k, v := range b {
		switch k {
		case "properties":
			op, _ := out[k].(map[string]any)
			bp, _ := v.(map[string]any)
			merged := make(map[string]any, len(op)+len(bp))
			for pk, pv := range bp {
				merged[pk] = pv
			}
			for pk, pv := range op {
				merged[pk] = pv
			}
			out[k] = merged
		case "required":
			or, _ := out[k].([]any)
			br, _ := v.([]any)
			out[k] = append(append([]any(nil), or...), br...)
		default:
			if _, ok := out[k]; !ok {
				out[k] = v
			}
		}
	}
}

// onlyNull reports whether a schema admits null and nothing else.
func onlyNull(m map[string]any) bool {
	if t, ok := m["type"].(string); ok && t == "null" {
		return true
	}
	if c, ok := m["const"]; ok && c == nil {
		return true
	}
	if e, ok := m["enum"].([]any); ok && len(e) == 1 && e[0] == nil {
		return true
	}
	return false
}

// scalar reports whether a schema is a string, number, integer or boolean
// (or a const or enum of them, or an untyped set of constraints on the
// parent's type) without alternatives of its own.
func scalar(m map[string]any) bool {
	if has(m, "anyOf", "oneOf", "allOf") {
		return false
	}
	if has(m, "properties", "items", "prefixItems", "additionalProperties") {
		return false
	}
	for _, t := range typesOf(m) {
		switch t {
		case "string", "number", "integer", "boolean":
		default:
			return false
		}
	}
	return true
}

// combine gives out each constraint every branch has.
func combine(out map[string]any, bs []map[string]any) {
	if len(bs) == 0 {
		return
	}
	u := union{bs: bs, parent: typesOf(out)}
	if len(u.parent) == 0 {
		if types := u.types(); len(types) > 0 {
			out["type"] = types
		}
	}
	if _, ok := out["description"]; !ok {
		for _, b := range bs {
			if d, ok := b["description"].(string); ok && d != "" {
				out["description"] = d
				break
			}
		}
	}
	if !has(out, "enum", "const") && u.every(enumish) {
		var vals []any
		for _, b := range bs {
			vals = append(vals, values(b)...)
		}
		out["enum"] = vals
		return
	}
	u.shape(out)
	lengthBounded := func(b map[string]any) bool {
		f, _ := b["format"].(string)
		return has(b, "maxLength", "pattern") || enumish(b) || boundedFormats[f] || !u.isType(b, "string")
	}
	if !has(out, "maxLength") && u.every(lengthBounded) {
		out["maxLength"] = extreme(bs, "maxLength", true)
	}
	numeric := func(keys ...string) func(b map[string]any) bool {
		return func(b map[string]any) bool {
			return has(b, keys...) || enumish(b) || !u.isType(b, "number")
		}
	}
	if !has(out, "minimum", "exclusiveMinimum") && u.every(numeric("minimum", "exclusiveMinimum")) {
		out["minimum"] = extreme(bs, "minimum", false)
	}
	if !has(out, "maximum", "exclusiveMaximum") && u.every(numeric("maximum", "exclusiveMaximum")) {
		out["maximum"] = extreme(bs, "maximum", true)
	}
}

// union is the scalar branches of an anyOf or oneOf, and the types their
// parent declares.
type union struct {
	bs     []map[string]any
	parent []string
}

func enumish(b map[string]any) bool { return has(b, "enum", "const") }

// every reports whether every branch satisfies ok.
func (u union) every(ok func(b map[string]any) bool) bool {
	for _, b := range u.bs {
		if !ok(b) {
			return false
		}
	}
	return true
}

// isType reports whether a branch admits type t: by its own types, those
// of its values, or, when it states neither, its parent's. A branch of
// unknown type is taken to admit every type, so it must carry a
// constraint itself to count.
func (u union) isType(b map[string]any, t string) bool {
	types := branchTypes(b)
	if len(types) == 0 {
		types = u.parent
	}
	if len(types) == 0 {
		return true
	}
	for _, x := range types {
		if x == t || (t == "number" && x == "integer") {
			return true
		}
	}
	return false
}

// types returns the union of the branches' types.
func (u union) types() []any {
	var types []any
	seen := map[string]bool{}
	for _, b := range u.bs {
		for _, t := range branchTypes(b) {
			if !seen[t] {
				seen[t] = true
				types = append(types, t)
			}
		}
	}
	return types
}

// shape gives out a pattern (or the uuid format) when every string branch
// has a shape: a pattern, an enum or const, or the uuid format.
func (u union) shape(out map[string]any) {
	uuid := func(b map[string]any) bool { f, _ := b["format"].(string); return f == "uuid" }
	shaped := func(b map[string]any) bool {
		return has(b, "pattern") || enumish(b) || uuid(b) || !u.isType(b, "string")
	}
	if has(out, "pattern") || !u.every(shaped) {
		return
	}
	for _, b := range u.bs {
		if p, ok := b["pattern"].(string); ok && p != "" {
			out["pattern"] = p
			return
		}
	}
	if u.every(func(b map[string]any) bool { return uuid(b) || !u.isType(b, "string") }) {
		out["format"] = "uuid"
	}
}

// branchTypes returns a branch's types, inferred from its const or enum
// values when it declares none.
func branchTypes(b map[string]any) []string {
	if t := typesOf(b); len(t) > 0 {
		return t
	}
	var out []string
	for _, v := range values(b) {
		switch v.(type) {
		case string:
			out = append(out, "string")
		case float64:
			out = append(out, "number")
		case bool:
			out = append(out, "boolean")
		}
	}
	return out
}

// values returns a schema's const and enum values.
func values(b map[string]any) []any {
	var out []any
	if c, ok := b["const"]; ok {
		out = append(out, c)
	}
	if e, ok := b["enum"].([]any); ok {
		out = append(out, e...)
	}
	return out
}

// extreme returns the largest (or smallest) value of key among the
// branches, const and enum numbers included; 0 if none has one.
func extreme(bs []map[string]any, key string, largest bool) float64 {
	var best float64
	found := false
	consider := func(f float64) {
		if !found || (largest && f > best) || (!largest && f < best) {
			best, found = f, true
		}
	}
	for _, b := range bs {
		if f, ok := b[key].(float64); ok {
			consider(f)
		}
		for _, v := range values(b) {
			switch x := v.(type) {
			case float64:
				consider(x)
			case string:
				if key == "maxLength" {
					consider(float64(len(x)))
				}
			}
		}
	}
	return best
}
