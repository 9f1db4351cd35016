package audit

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

const maxSchemaDepth = 32

// categoricalText marks a description that lists the allowed values of a
// string the schema leaves free.
var categoricalText = regexp.MustCompile(`(?i)\b(one of|must be either|possible values|allowed values|valid values|accepted values|options are|either\s+["'\w/-]+\s+or\b)`)

// categoricalNames are property names whose values are usually a closed
// set.
var categoricalNames = map[string]bool{
	"category": true, "type": true, "kind": true, "status": true, "state": true,
	"mode": true, "sort": true, "sort_by": true, "sortby": true, "order": true,
	"order_by": true, "orderby": true, "direction": true, "level": true,
	"priority": true, "severity": true, "visibility": true, "unit": true,
	"units": true, "currency": true, "region": true, "environment": true, "env": true,
}

var idName = regexp.MustCompile(`(^|_)(id|ids|uuid|guid|sku|slug)$|[a-z0-9](Id|ID|Ids|IDs|Uuid|UUID)$|^(ID|UUID)$`)

// boundedFormats are string formats whose values have a bounded length.
var boundedFormats = map[string]bool{
	"date": true, "date-time": true, "time": true, "duration": true, "uuid": true,
	"ipv4": true, "ipv6": true, "email": true, "hostname": true,
}

var lengthText = regexp.MustCompile(`(?i)\b(max(imum)?|at most|up to|no more than|limit(ed)? to)\s*(of\s*)?\d+\s*(characters|chars|char|letters|bytes)\b`)

var (
	boundText = regexp.MustCompile(`(?i)(\b(max(imum)?|min(imum)?|at (most|least)|up to|no more than|ceiling|cap(ped)? (at|of)|hard limit)\b[\s:=]*(of|is)?\s*-?\d|\bbetween\s+-?\d+(\.\d+)?\s+and\s+-?\d|\(\s*-?\d+(\.\d+)?\s*(-|–|to)\s*-?\d+(\.\d+)?\s*\))`)
	maxValue  = regexp.MustCompile(`(?i)\b(max(imum)?|at most|up to|no more than|ceiling|hard limit)\b[\s:=]*(of|is)?\s*(-?\d+(\.\d+)?)`)
	minValue  = regexp.MustCompile(`(?i)\b(min(imum)?|at least)\b[\s:=]*(of|is)?\s*(-?\d+(\.\d+)?)`)
	rangeText = regexp.MustCompile(`(-?\d+(?:\.\d+)?)\s*(?:-|–|to|and)\s*(-?\d+(?:\.\d+)?)`)
)

func (a *auditor) checkSchema(t tool) {
	const root = "inputSchema"
	if t.encodeErr != nil {
		a.item(RuleSchemas, t.name, root)
		a.add(Finding{Rule: RuleSchemas, Check: CheckRootType, Severity: Error, Tool: t.name, Path: root,
			Message: "the tool definition cannot be encoded: " + t.encodeErr.Error(),
			Fix:     "set either InputSchema or RawInputSchema, not both"})
		return
	}
	if t.schema == nil {
		a.item(RuleSchemas, t.name, root)
		a.add(Finding{Rule: RuleSchemas, Check: CheckRootType, Severity: Error, Tool: t.name, Path: root,
			Message: "the tool has no input schema object; clients cannot build a call",
			Fix:     `declare {"type": "object", "properties": {}, "additionalProperties": false} even for a tool without arguments`})
		return
	}
	w := walker{a: a, tool: t, seen: map[string]bool{}, expanded: map[string]bool{}}
	w.node(root, t.schema, "", true, 0)
}

// maxSchemaNodes bounds the nodes the audit reads in one schema: far more
// than any hand-written schema has, far less than a hostile one can make
// a naive walk visit.
const maxSchemaNodes = 10_000

// deadlineEvery is how many nodes the walker reads between two looks at
// the deadline.
const deadlineEvery = 256

type walker struct {
	a    *auditor
	tool tool
	seen map[string]bool // $refs on the current path, against cycles
	// expanded holds the $refs whose targets have been walked, from any
	// path: a target is read once per schema, so a DAG of references
	// costs its size, not its number of paths.
	expanded map[string]bool
	// shallow is set while a node whose target was walked before is
	// checked: its own keywords are, its children are not again.
	shallow bool
	nodes   int  // nodes read, and the work of merging allOf branches
	deep    bool // the depth bound was reported
	stopped bool // the node bound or the deadline ended the walk
}

// enter counts a node against the schema's bounds and the deadline, and
// reports whether to read it. The first node past a bound gets a finding
// that says so.
func (w *walker) enter(path string, depth int) bool {
	if w.stopped {
		return false
	}
	if depth > maxSchemaDepth {
		if !w.deep {
			w.deep = true
			w.add(CheckTooComplex, Error, path, fmt.Sprintf("the schema nests deeper than %d levels; the audit reads no deeper, and a model asked to fill such a shape guesses", maxSchemaDepth),
				"flatten the schema: fewer nested objects, and no chains of $refs")
		}
		return false
	}
	w.nodes++
	if w.nodes > maxSchemaNodes {
		w.stopped = true
		w.add(CheckTooComplex, Error, path, fmt.Sprintf("the schema has more than %d nodes; the audit stops reading it here, and every turn of every conversation pays for it", maxSchemaNodes),
			"split the tool, or move rarely used options into a resource")
		return false
	}
	if w.nodes%deadlineEvery == 0 && w.a.ctx.Err() != nil {
		w.stopped = true
		w.a.cut = true
		return false
	}
	return true
}

func (w *walker) add(check string, sev Severity, path, msg, fix string) {
	w.a.add(Finding{Rule: RuleSchemas, Check: check, Severity: sev, Tool: w.tool.name, Path: path, Message: msg, Fix: fix})
}

func childPath(path, key string) string {
	if identOnly(key) {
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

// identOnly reports whether key matches ^[A-Za-z_$][A-Za-z0-9_$-]*$, so
// that it reads unquoted in a path.
func identOnly(key string) bool {
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c == '_', c == '$':
		case (c >= '0' && c <= '9' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return key != ""
}

// resolve follows a local $ref ("#/$defs/x", "#/definitions/x").
func (w *walker) resolve(ref string) (map[string]any, bool) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, false
	}
	var cur any = w.tool.schema
	for _, part := range strings.Split(ref[2:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[part]
		if !ok {
			return nil, false
		}
	}
	m, ok := cur.(map[string]any)
	return m, ok
}

// withTarget merges a $ref's target with the referring object's other
// keywords, which apply beside it; the $ref itself is dropped.
func withTarget(target, m map[string]any) map[string]any {
	merged := make(map[string]any, len(target)+len(m))
	for k, v := range target {
		merged[k] = v
	}
	for k, v := range m {
		if k != "$ref" {
			merged[k] = v
		}
	}
	return merged
}

func typesOf(m map[string]any) []string {
	var out []string
	switch v := m["type"].(type) {
	case string:
		if v != "" && v != "null" {
			out = append(out, v)
		}
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok && s != "" && s != "null" {
				out = append(out, s)
			}
		}
	}
	return out
}

func has(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

func (w *walker) node(path string, n any, name string, root bool, depth int) {
	if !w.enter(path, depth) {
		return
	}
	w.a.item(RuleSchemas, w.tool.name, path)
	m, ok := n.(map[string]any)
	if !ok {
		w.untyped(path, n, root)
		return
	}
	if ref, ok := m["$ref"].(string); ok {
		target, shallow, ok := w.follow(path, ref)
		if !ok {
			return
		}
		if shallow {
			w.shallow = true
			defer func() { w.shallow = false }()
		}
		w.seen[ref] = true
		defer delete(w.seen, ref)
		m = withTarget(target, m)
	}
	m, branches := w.flatten(m)
	desc, _ := m["description"].(string)
	types := typesOf(m)
	if root {
		if len(types) != 1 || types[0] != "object" {
			w.add(CheckRootType, Error, path, `the input schema is not "type": "object"; clients may send a stringified object or nothing at all`,
				`declare "type": "object" (with "properties": {} for a tool without arguments)`)
			if len(types) == 0 {
				return
			}
		}
	}
	if !w.shallow {
		for _, b := range branches {
			w.node(fmt.Sprintf("%s.%s[%d]", path, b.key, b.i), b.schema, name, false, depth+1)
		}
	}
	if len(types) == 0 {
		if len(branches) == 0 && !has(m, "enum", "const") {
			w.add(CheckType, Error, path, "the property has no type, so the model may send any JSON value (an \"any\" type)",
				`declare a concrete "type" ("string", "integer", "number", "boolean", "array" or "object")`)
		}
		return
	}
	for _, typ := range types {
		switch typ {
		case "string":
			w.str(path, m, name, desc)
		case "number", "integer":
			w.number(path, m, typ, desc)
		case "array":
			w.array(path, m, name, depth)
		case "object":
			w.object(path, m, depth)
		case "boolean":
		default:
			w.add(CheckType, Error, path, fmt.Sprintf("%q is not a JSON Schema type; validators and models treat the property as untyped", typ),
				`use one of "string", "integer", "number", "boolean", "array", "object", "null"`)
		}
	}
}

// untyped checks a schema that is not an object: false admits nothing,
// which is concrete enough; true (or anything else) admits any value.
func (w *walker) untyped(path string, n any, root bool) {
	if b, isBool := n.(bool); isBool && !b {
		return
	}
	check := CheckType
	if root {
		check = CheckRootType
	}
	w.add(check, Error, path, "the schema accepts any value (it is true or not an object); the model gets no guidance at all",
		`declare a concrete "type"`)
}

// follow resolves a node's $ref. It reports false when there is nothing
// to read: a reference back up the current path (a cycle), an external
// one (C.network_ref, reported by checkNetworkRefs), or one that does not
// resolve (reported here). shallow is true when the target was walked
// before, from another path.
func (w *walker) follow(path, ref string) (target map[string]any, shallow, ok bool) {
	if w.seen[ref] || !strings.HasPrefix(ref, "#") {
		return nil, false, false
	}
	target, ok = w.resolve(ref)
	if !ok {
		w.add(CheckType, Error, path, fmt.Sprintf("the $ref %q does not resolve within the schema, so its type is unknown to a client", ref),
			"inline the referenced schema or add it under $defs")
		return nil, false, false
	}
	shallow = w.expanded[ref]
	w.expanded[ref] = true
	return target, shallow, true
}

func (w *walker) str(path string, m map[string]any, name, desc string) {
	if has(m, "enum", "const") {
		return
	}
	pattern, _ := m["pattern"].(string)
	format, _ := m["format"].(string)
	switch {
	case categoricalText.MatchString(desc):
		fix := `add "enum" with the allowed values and drop the list from the description`
		if vals := listedValues(desc); len(vals) > 1 {
			fix = fmt.Sprintf(`add "enum": %s and drop the list from the description`, jsonList(vals))
		}
		w.add(CheckEnum, Error, path, "the description lists the allowed values but the schema takes any string; the model will send near-misses (\"ai-ml\" for \"AI/ML\") that match nothing",
			fix)
	case categoricalNames[strings.ToLower(name)] && pattern == "":
		w.add(CheckEnum, Warning, path, fmt.Sprintf("%q looks categorical but the schema takes any string; the model has to guess the spelling of each value", name),
			`if the values form a closed set, list them in "enum"`)
	}
	if pattern == "" && idName.MatchString(name) && format != "uuid" {
		w.add(CheckPattern, Warning, path, fmt.Sprintf("%q looks like an identifier but has no pattern; anything, including \"../../etc/passwd\", passes the schema", name),
			`add a "pattern" with the identifier's shape (e.g. "^sk_[a-z0-9]{16}$") and use the same regular expression in the handler`)
	}
	if pattern == "" && !boundedFormats[format] && !has(m, "maxLength") {
		sev, msg := Warning, "a free string without maxLength; a model that decides more context is better will send kilobytes"
		if lengthText.MatchString(desc) {
			sev, msg = Error, "the description states a length limit that the schema does not; the model does not treat prose as a constraint"
		}
		w.add(CheckMaxLength, sev, path, msg, `add "maxLength" (and "minLength" if empty strings are invalid)`)
	}
}

func (w *walker) number(path string, m map[string]any, typ, desc string) {
	if has(m, "enum", "const") {
		return
	}
	hasMin := has(m, "minimum", "exclusiveMinimum")
	hasMax := has(m, "maximum", "exclusiveMaximum")
	if hasMin && hasMax {
		return
	}
	var missing []string
	if !hasMin {
		missing = append(missing, `"minimum"`)
	}
	if !hasMax {
		missing = append(missing, `"maximum"`)
	}
	sev, msg := Warning, fmt.Sprintf("the %s has no %s; a model that wants \"everything\" sends 99999", typ, strings.Join(missing, " or "))
	if boundText.MatchString(desc) {
		sev, msg = Error, fmt.Sprintf("the description states a bound that the schema does not (no %s); the model does not treat prose as a constraint", strings.Join(missing, " or "))
	}
	lo, hi := describedBounds(desc)
	var fix []string
	if !hasMin {
		if lo == "" {
			lo = "…"
		}
		fix = append(fix, `"minimum": `+lo)
	}
	if !hasMax {
		if hi == "" {
			hi = "…"
		}
		fix = append(fix, `"maximum": `+hi)
	}
	w.add(CheckBounds, sev, path, msg, "add "+strings.Join(fix, ", ")+" and clamp to the same bounds in the handler")
}

// describedBounds extracts the bounds a description states, if any.
func describedBounds(desc string) (lo, hi string) {
	if m := maxValue.FindStringSubmatch(desc); m != nil {
		hi = m[4]
	}
	if m := minValue.FindStringSubmatch(desc); m != nil {
		lo = m[4]
	}
	if lo == "" && hi == "" {
		if m := rangeText.FindStringSubmatch(desc); m != nil {
			lo, hi = m[1], m[2]
		}
	}
	return lo, hi
}

func (w *walker) array(path string, m map[string]any, name string, depth int) {
	if !has(m, "maxItems") && !has(m, "enum", "const") {
		w.add(CheckMaxItems, Warning, path, "the array has no maxItems; nothing stops the model from sending thousands of elements",
			`add "maxItems" (and "minItems" if an empty array is invalid)`)
	}
	switch items := m["items"].(type) {
	case nil:
		if pi, ok := m["prefixItems"].([]any); ok {
			if w.shallow {
				return
			}
			for i, it := range pi {
				w.node(fmt.Sprintf("%s.prefixItems[%d]", path, i), it, name, false, depth+1)
			}
			return
		}
		p := path + ".items"
		w.a.item(RuleSchemas, w.tool.name, p)
		w.add(CheckType, Error, p, "the array's items have no schema, so each element may be any JSON value",
			`declare "items" with a concrete "type"`)
	case []any:
		if w.shallow {
			return
		}
		for i, it := range items {
			w.node(fmt.Sprintf("%s.items[%d]", path, i), it, name, false, depth+1)
		}
	default:
		if !w.shallow {
			w.node(path+".items", items, name, false, depth+1)
		}
	}
}

func (w *walker) object(path string, m map[string]any, depth int) {
	closed := false
	switch ap := m["additionalProperties"].(type) {
	case bool:
		closed = !ap
	case map[string]any:
		closed = true // a typed map: keys are free by design, values are checked
		if !w.shallow {
			w.node(path+".additionalProperties", ap, "", false, depth+1)
		}
	}
	if up, ok := m["unevaluatedProperties"].(bool); ok && !up {
		closed = true
	}
	if !closed {
		w.add(CheckAdditional, Warning, path, "the object does not declare additionalProperties: false, so a misspelled argument is silently ignored instead of rejected",
			`add "additionalProperties": false`)
	}
	props, _ := m["properties"].(map[string]any)
	if w.shallow {
		return
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	base := path + ".properties"
	for _, k := range keys {
		w.node(childPath(base, k), props[k], k, false, depth+1)
	}
}

var listSeparator = regexp.MustCompile(`,|\bor\b`)

// listedValues extracts the values a description lists after "one of" and
// similar phrases, for the fix of a missing enum.
func listedValues(desc string) []string {
	loc := categoricalText.FindStringIndex(desc)
	if loc == nil {
		return nil
	}
	rest := strings.TrimLeft(desc[loc[1]:], " :")
	if i := strings.IndexAny(rest, ")\n"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.Index(rest, ". "); i >= 0 {
		rest = rest[:i]
	}
	var out []string
	for _, part := range listSeparator.Split(rest, -1) {
		v := strings.Trim(strings.TrimSpace(part), `"'.`+"`")
		if v == "" || strings.EqualFold(v, "etc") || strings.EqualFold(v, "and so on") {
			continue
		}
		out = append(out, v)
		if len(out) == 32 {
			break
		}
	}
	return out
}

func jsonList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = strconv.Quote(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
