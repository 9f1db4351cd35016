package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/redact"
)

// rawArguments returns a call's arguments as JSON text: json.RawMessage
// or []byte as they are (what both SDKs receive), any other value as
// encoding/json writes it. Missing or null arguments are an empty object,
// as for a tool that takes none.
func rawArguments(args any) ([]byte, error) {
	switch a := args.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return a, nil
	case []byte:
		return a, nil
	default:
		return json.Marshal(a)
	}
}

// scanner makes one linear pass over the arguments before anything is
// decoded. It enforces the size and depth bounds, and it spots what
// encoding/json would let through but the schema forbids: members that
// match a field only case-insensitively, unknown members, nulls for
// non-pointer fields, values of the wrong JSON type. Any of those sends the
// call down the slow path, which explains every problem at once; a clean
// scan lets the fast path decode with json.Unmarshal alone.
type scanner struct {
	b         []byte
	i         int
	maxDepth  int
	slow      bool
	tooDeep   bool
	malformed bool
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) bad() bool {
	s.malformed = true
	return false
}

// str scans a string starting at its opening quote, reporting whether it
// contains escapes.
func (s *scanner) str() (escaped, ok bool) {
	s.i++
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return escaped, true
		case c == '\\':
			escaped = true
			s.i += 2
		case c < 0x20:
			return escaped, s.bad()
		default:
			s.i++
		}
	}
	return escaped, s.bad()
}

func (s *scanner) literal(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return s.bad()
	}
	s.i += len(word)
	return true
}

// value scans one value that binds to ti; a nil ti accepts anything.
func (s *scanner) value(ti *typeInfo, depth int) bool {
	s.ws()
	if s.i >= len(s.b) {
		return s.bad()
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(ti, depth)
	case c == '[':
		return s.array(ti, depth)
	case c == '"':
		if ti != nil && ti.kind != kString && ti.kind != kTime && ti.kind != kAny {
			s.slow = true
		}
		start := s.i + 1
		esc, ok := s.str()
		if ok && ti != nil && ti.kind == kTime && (esc || !dateTimeShape(s.b[start:s.i-1])) {
			s.slow = true
		}
		return ok
	case c == 't' || c == 'f':
		if ti != nil && ti.kind != kBool && ti.kind != kAny {
			s.slow = true
		}
		if c == 't' {
			return s.literal("true")
		}
		return s.literal("false")
	case c == 'n':
		if ti != nil && !ti.nullable {
			s.slow = true
		}
		return s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		s.number(ti)
		return true
	default:
		return s.bad()
	}
}

// object scans an object starting at its "{".
func (s *scanner) object(ti *typeInfo, depth int) bool {
	if depth >= s.maxDepth {
		s.tooDeep = true
		return false
	}
	if ti != nil && ti.kind != kStruct && ti.kind != kMap && ti.kind != kAny {
		s.slow, ti = true, nil
	}
	s.i++
	s.ws()
	var seen uint64 // members that must be present, seen so far
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return s.closed(ti, seen)
	}
	for {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return s.bad()
		}
		start := s.i + 1
		esc, ok := s.str()
		if !ok {
			return false
		}
		var child *typeInfo
		if ti != nil {
			switch ti.kind {
			case kStruct:
				if f := ti.byJSON[string(s.b[start:s.i-1])]; f != nil && !esc {
					child = f.typ
					if f.reqBit >= 0 {
						seen |= 1 << f.reqBit
					}
				} else {
					s.slow = true
				}
			case kMap:
				child = ti.elem
			}
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return s.bad()
		}
		s.i++
		if !s.value(child, depth+1) {
			return false
		}
		if done, ok := s.separator('}'); !ok || done {
			return ok && s.closed(ti, seen)
		}
	}
}

// separator reads what follows a member or an element: a comma, after
// which more follow, or end, which closes the object or array (done).
func (s *scanner) separator(end byte) (done, ok bool) {
	s.ws()
	if s.i >= len(s.b) {
		return false, s.bad()
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		return false, true
	case end:
		s.i++
		return true, true
	}
	return false, s.bad()
}

// closed ends an object, sending the call down the slow path when a
// member that must be present was not seen.
func (s *scanner) closed(ti *typeInfo, seen uint64) bool {
	if ti != nil && ti.kind == kStruct && (ti.reqOver || seen != ti.reqMask) {
		s.slow = true
	}
	return true
}

// array scans an array starting at its "[".
func (s *scanner) array(ti *typeInfo, depth int) bool {
	if depth >= s.maxDepth {
		s.tooDeep = true
		return false
	}
	var child *typeInfo
	if ti != nil {
		if ti.kind == kSlice {
			child = ti.elem
		} else if ti.kind != kAny {
			s.slow = true
		}
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		if !s.value(child, depth+1) {
			return false
		}
		if done, ok := s.separator(']'); !ok || done {
			return ok
		}
	}
}

// number skips a number; json.Unmarshal checks its grammar.
func (s *scanner) number(ti *typeInfo) {
	start := s.i
	integer := true
	for s.i < len(s.b) {
		d := s.b[s.i]
		if d >= '0' && d <= '9' || d == '-' || d == '+' {
			s.i++
			continue
		}
		if d == '.' || d == 'e' || d == 'E' {
			integer = false
			s.i++
			continue
		}
		break
	}
	if ti == nil {
		return
	}
	switch ti.kind {
	case kInt, kUint:
		if !integer {
			s.slow = true // 1.0 and 1e2 are integers to JSON Schema, not to encoding/json
		}
	case kFloat:
		if ti.bits == 32 && (s.i-start > 38 || bytes.ContainsAny(s.b[start:s.i], "eE")) {
			s.slow = true // float32's bound is checked exactly, on the slow path
		}
	case kAny:
	default:
		s.slow = true
	}
}

// bindResult is what binding found wrong, if anything.
type bindResult struct {
	fields  []envelope.FieldError
	more    int      // errors beyond fields, counted only
	coerced []string // paths coerced from strings
	bad     []string // paths whose values were dropped
	fatal   bool     // nothing could be bound; skip validation
}

// bind decodes raw into dst, a pointer to a zero T. It allocates nothing
// beyond what json.Unmarshal does when the arguments are well-formed.
func (p *plan) bind(raw []byte, dst any, o *options) bindResult {
	if len(raw) > o.maxBytes {
		return fatal("", "size", strconv.Itoa(o.maxBytes),
			fmt.Sprintf("the arguments are %d bytes of JSON, more than the %d this server accepts", len(raw), o.maxBytes))
	}
	s := scanner{b: raw, maxDepth: o.maxDepth}
	s.ws()
	if s.i == len(raw) || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		// No arguments: an empty object, whose missing members are
		// reported like any others.
		raw = emptyObject
		s = scanner{b: raw, maxDepth: o.maxDepth}
	}
	if raw[s.i] != '{' {
		return fatal("", "type", "object", "the arguments must be a JSON object, not "+jsonKindOfByte(raw[s.i]))
	}
	ok := s.value(p.root, 0)
	if s.tooDeep {
		return fatal("", "depth", strconv.Itoa(o.maxDepth),
			fmt.Sprintf("the arguments nest objects and arrays more than %d levels deep", o.maxDepth))
	}
	if ok {
		s.ws()
		if s.i != len(raw) {
			s.malformed = true
		}
	}
	if !s.malformed && !s.slow {
		if json.Unmarshal(raw, dst) == nil {
			return bindResult{}
		}
	}
	reflect.ValueOf(dst).Elem().SetZero()
	return p.slowBind(raw, dst, o)
}

var emptyObject = []byte("{}")

func fatal(field, rule, param, msg string) bindResult {
	return bindResult{fatal: true, fields: []envelope.FieldError{{Field: field, Rule: rule, Param: param, Message: msg}}}
}

func jsonKindOfByte(c byte) string {
	switch {
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	}
	return "valid JSON"
}

// slowBind explains everything wrong with the arguments' shape at once,
// then binds what is left so that validation can report the rest.
func (p *plan) slowBind(raw []byte, dst any, o *options) bindResult {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		// Anything but the end after the object, even what the decoder
		// cannot read as a token ("]"), is more than one value.
		if _, terr := dec.Token(); terr != io.EOF {
			err = errors.New("unexpected data after the arguments object")
		}
	}
	if err != nil {
		msg := err.Error()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			msg = fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
		}
		return fatal("", "json", "", "the arguments are not valid JSON: "+redact.String(msg))
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fatal("", "type", "object", "the arguments must be a JSON object")
	}
	w := walker{o: o}
	clean := w.walk(m, p.root, "")
	// Past the cap, validation would only find more of the same: the
	// agent fixes these first.
	res := bindResult{fields: w.fields, more: w.more, bad: w.bad, fatal: w.more > 0, coerced: w.coerced}
	if res.fatal {
		return res
	}
	b, err := json.Marshal(clean)
	if err == nil {
		err = json.Unmarshal(b, dst)
	}
	if err != nil {
		// The walker should have caught whatever encoding/json objects to;
		// if it did not, still refuse rather than guess.
		res.fields = append(res.fields, envelope.FieldError{Rule: "type", Message: "the arguments do not match this tool's input schema"})
		res.fatal = true
	}
	return res
}

// walker checks a decoded JSON value against a type, collecting every
// mismatch and building a copy without the mismatched parts. Its
// recursion needs no bound of its own: bind's scan refused arguments
// nested deeper than WithMaxDepth before any reached it (a scan stopped
// early by malformed JSON leaves the decoder an error, and encoding/json
// bounds nesting too).
type walker struct {
	o       *options
	coerced []string // paths of values coerced from strings (WithCoercion)
	fields  []envelope.FieldError
	more    int // errors beyond MaxFieldErrors, counted only
	bad     []string
}

func (w *walker) fail(path, rule, param, msg string) {
	w.add(envelope.FieldError{Field: path, Rule: rule, Param: param, Message: msg})
}

// number returns v as a JSON number: v itself, or with WithCoercion a
// string holding exactly one JSON number ("1", "-2.5", not " 1" or "0x1").
func (w *walker) number(v any, path string) (json.Number, bool) {
	switch x := v.(type) {
	case json.Number:
		return x, true
	case string:
		if _, ok := parseDecimal(x); ok && w.o.coerce {
			w.coerced = append(w.coerced, path)
			return json.Number(x), true
		}
	}
	return "", false
}

// coerceBool returns, with WithCoercion, the boolean a string "true" or
// "false" holds.
func (w *walker) coerceBool(v any, path string) (bool, bool) {
	s, ok := v.(string)
	if !ok || !w.o.coerce || s != "true" && s != "false" {
		return false, false
	}
	w.coerced = append(w.coerced, path)
	return s == "true", true
}

// full reports that MaxFieldErrors are recorded: the rest only count.
func (w *walker) full() bool { return len(w.fields) >= MaxFieldErrors }

// add records a field error, up to MaxFieldErrors; beyond, it only counts.
func (w *walker) add(fe envelope.FieldError) {
	if w.full() {
		w.more++
		return
	}
	w.fields = append(w.fields, fe)
	w.bad = append(w.bad, fe.Field)
}

// drop is returned for a value that cannot be bound.
type dropped struct{}

func (w *walker) walk(v any, ti *typeInfo, path string) any {
	if ti == nil {
		return v
	}
	if ti.kind == kAny {
		if !ti.raw && !w.anyNumbers(v, path) {
			return dropped{}
		}
		return v
	}
	if v == nil {
		if ti.nullable {
			return nil
		}
		w.typeError(path, ti, v)
		return dropped{}
	}
	switch ti.kind {
	case kStruct:
		return w.walkStruct(v, ti, path)
	case kMap:
		return w.walkMap(v, ti, path)
	case kSlice:
		return w.walkSlice(v, ti, path)
	}
	return w.walkScalar(v, ti, path)
}

// walkStruct checks an object bound to a struct: unknown members, missing
// ones, and each member's value. Optional members sent as null are absent.
func (w *walker) walkStruct(v any, ti *typeInfo, path string) any {
	m, ok := v.(map[string]any)
	if !ok {
		w.typeError(path, ti, v)
		return dropped{}
	}
	out := make(map[string]any, len(m))
	for _, k := range sortedKeys(m) {
		f := ti.byJSON[k]
		if f != nil && m[k] == nil && !f.present {
			// An optional member sent as null is absent.
			continue
		}
		if f == nil && w.full() {
			w.more++
			continue
		}
		if f == nil {
			name := pathKey(path, k)
			msg := unknownMessage(path, name)
			fe := envelope.FieldError{Field: name, Rule: "unknown", Message: msg, Allowed: slices.Clone(ti.names)}
			if s := suggest(k, ti.names); s != "" {
				fe.Suggestion = s
				fe.Message += fmt.Sprintf("; did you mean %q?", s)
			}
			w.add(fe)
			continue
		}
		if c := w.walk(m[k], f.typ, join(path, k)); c != (dropped{}) {
			out[k] = c
		}
	}
	for _, f := range ti.fields {
		if _, ok := m[f.jsonName]; f.present && !ok {
			name := join(path, f.jsonName)
			w.fail(name, "required", "", name+" is required")
		}
	}
	return out
}

func (w *walker) walkMap(v any, ti *typeInfo, path string) any {
	m, ok := v.(map[string]any)
	if !ok {
		w.typeError(path, ti, v)
		return dropped{}
	}
	out := make(map[string]any, len(m))
	for _, k := range sortedKeys(m) {
		if c := w.walk(m[k], ti.elem, pathKey(path, k)); c != (dropped{}) {
			out[k] = c
		}
	}
	return out
}

// walkSlice checks an array, keeping dropped elements' positions.
func (w *walker) walkSlice(v any, ti *typeInfo, path string) any {
	a, ok := v.([]any)
	if !ok {
		w.typeError(path, ti, v)
		return dropped{}
	}
	out := make([]any, 0, len(a))
	for i, e := range a {
		c := w.walk(e, ti.elem, path+"["+strconv.Itoa(i)+"]")
		if c == (dropped{}) {
			// Keep the index positions of later elements stable.
			c = nil
			if !ti.elem.nullable {
				c = zeroJSON(ti.elem)
				if ti.elem.kind == kStruct || ti.elem.kind == kMap {
					c = map[string]any{}
				} else if ti.elem.kind == kSlice {
					c = []any{}
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// walkScalar checks a string, date-time, boolean or number, coercing
// strings with WithCoercion.
func (w *walker) walkScalar(v any, ti *typeInfo, path string) any {
	switch ti.kind {
	case kString:
		if _, ok := v.(string); !ok {
			w.typeError(path, ti, v)
			return dropped{}
		}
		return v
	case kTime:
		s, ok := v.(string)
		var t time.Time
		if !ok || !dateTimeShape([]byte(s)) || t.UnmarshalText([]byte(s)) != nil {
			w.fail(path, "format", "date-time", fmt.Sprintf("%s must be an RFC 3339 date-time string such as \"2006-01-02T15:04:05Z\"", orArgs(path)))
			return dropped{}
		}
		return v
	case kBool:
		if _, ok := v.(bool); !ok {
			if b, ok := w.coerceBool(v, path); ok {
				return b
			}
			w.typeError(path, ti, v)
			return dropped{}
		}
		return v
	case kInt, kUint:
		n, ok := w.number(v, path)
		if !ok {
			w.typeError(path, ti, v)
			return dropped{}
		}
		canon, rule, param, msg := integer(string(n), ti)
		if rule != "" {
			w.fail(path, rule, param, orArgs(path)+" "+msg)
			return dropped{}
		}
		return json.Number(canon)
	case kFloat:
		n, ok := w.number(v, path)
		if !ok {
			w.typeError(path, ti, v)
			return dropped{}
		}
		if rule, param, msg := float(string(n), ti); rule != "" {
			w.fail(path, rule, param, orArgs(path)+" "+msg)
			return dropped{}
		}
		return n
	}
	return v
}

// anyNumbers refuses, inside a value of type any, the numbers that
// encoding/json cannot hold in a float64. It reports whether all fit.
func (w *walker) anyNumbers(v any, path string) bool {
	ok := true
	switch x := v.(type) {
	case json.Number:
		if _, err := strconv.ParseFloat(string(x), 64); err != nil {
			w.fail(path, "type", "number", orArgs(path)+" is out of range for a number")
			return false
		}
	case []any:
		for i, e := range x {
			ok = w.anyNumbers(e, path+"["+strconv.Itoa(i)+"]") && ok
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			ok = w.anyNumbers(x[k], pathKey(path, k)) && ok
		}
	}
	return ok
}

func (w *walker) typeError(path string, ti *typeInfo, v any) {
	if w.full() {
		w.more++
		return
	}
	want := expected(ti)
	w.fail(path, "type", jsonTypeName(ti), fmt.Sprintf("%s must be %s, not %s", orArgs(path), want, kindOf(v)))
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func jsonTypeName(ti *typeInfo) string {
	switch ti.kind {
	case kString, kTime:
		return "string"
	case kBool:
		return "boolean"
	case kInt, kUint:
		return "integer"
	case kFloat:
		return "number"
	case kSlice:
		return "array"
	case kMap, kStruct:
		return "object"
	}
	return ""
}

func expected(ti *typeInfo) string {
	switch ti.kind {
	case kString:
		return "a string"
	case kTime:
		return "an RFC 3339 date-time string"
	case kBool:
		return "a boolean"
	case kInt, kUint:
		return "an integer"
	case kFloat:
		return "a number"
	case kSlice:
		return "an array"
	}
	return "an object"
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "another type"
}
