package declared

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/internal/fields"
	"github.com/mcpguard/mcpguard/core/wire"
)

// memberCheck finds, in the arguments' JSON text, the members that
// readers would not read alike. The check reads an object as a map whose
// last member of a name wins; a server reads it otherwise:
// encoding/json into a struct (mcp-go's typed handlers and BindArguments,
// any go-sdk handler) matches a member to a field whatever its letter
// case, and some readers keep the first of a member sent twice. So
// "PATH" beside a declared "path" would be checked as an extra member and
// bound as path, and {"path":"../x","path":"a.txt"} checked as "a.txt"
// and read as "../x". Such arguments are refused, naming the member:
//
//   - a member sent more than once, after escapes are decoded
//     ("p\u0061th" is "path");
//   - a member whose name differs only in letter case, as encoding/json
//     folds it, from a property the schema declares anywhere ("PATH" for
//     "path"): rule unknown, with the declared name as the suggestion, as
//     core/validate's Binder.Bind answers a case variant of a field;
//   - two members of one object whose names differ only in letter case.
//
// The text was scanned before (nesting bounded, strings and literals
// well formed), so the walk is linear and its recursion bounded.
type memberCheck struct {
	b      []byte
	i      int
	names  *propertyNames
	fields []envelope.FieldError
	more   int
}

// ambiguousMembers returns the field errors of the members of raw, a
// scanned JSON value, that readers would not read alike.
func ambiguousMembers(raw []byte, names *propertyNames) ([]envelope.FieldError, int) {
	m := memberCheck{b: raw, names: names}
	m.value(nil)
	return m.fields, m.more
}

func (m *memberCheck) add(fe envelope.FieldError) {
	if len(m.fields) >= MaxFieldErrors {
		m.more++
		return
	}
	m.fields = append(m.fields, fe)
}

func (m *memberCheck) ws() {
	for m.i < len(m.b) && (m.b[m.i] == ' ' || m.b[m.i] == '\t' || m.b[m.i] == '\n' || m.b[m.i] == '\r') {
		m.i++
	}
}

// loc is where a value sits in the arguments, rendered as a path only
// for a field error: most calls have none, and a path costs a redaction
// per level.
type loc struct {
	parent *loc
	key    string
	index  int // an array element's, when elem
	elem   bool
}

func (l *loc) String() string {
	if l == nil {
		return ""
	}
	if l.elem {
		return fmt.Sprintf("%s[%d]", l.parent, l.index)
	}
	return fields.PathKey(l.parent.String(), l.key)
}

func (m *memberCheck) value(at *loc) {
	m.ws()
	if m.i >= len(m.b) {
		return
	}
	switch m.b[m.i] {
	case '{':
		m.object(at)
	case '[':
		m.array(at)
	case '"':
		m.str()
	default:
		for m.i < len(m.b) && !isDelimiter(m.b[m.i]) {
			m.i++
		}
	}
}

func isDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// str skips a string at its opening quote, returning its text with the
// quotes and whether it holds an escape.
func (m *memberCheck) str() ([]byte, bool) {
	start := m.i
	m.i++
	escaped := false
	for m.i < len(m.b) {
		switch m.b[m.i] {
		case '"':
			m.i++
			return m.b[start:m.i], escaped
		case '\\':
			escaped = true
			m.i += 2
		default:
			m.i++
		}
	}
	return m.b[start:min(m.i, len(m.b))], escaped
}

// memberName is one member name of an object, as decoded and as folded.
type memberName struct{ name, folded string }

// seenLinear is how many names of an object are compared one by one;
// past it, they are looked up, so that an object of many members costs
// linear time.
const seenLinear = 16

// names is the member names of one object so far.
type names struct {
	list   []memberName
	exact  map[string]bool
	folded map[string]string // folded -> the first name
}

func (n *names) add(name, folded string) {
	if n.exact == nil && len(n.list) < seenLinear {
		n.list = append(n.list, memberName{name, folded})
		return
	}
	if n.exact == nil {
		n.exact, n.folded = map[string]bool{}, map[string]string{}
		for _, s := range n.list {
			n.put(s.name, s.folded)
		}
		n.list = nil
	}
	n.put(name, folded)
}

func (n *names) put(name, folded string) {
	n.exact[name] = true
	if _, ok := n.folded[folded]; !ok {
		n.folded[folded] = name
	}
}

// find returns whether name was seen, and a different name seen that
// folds alike ("" for none).
func (n *names) find(name, folded string) (same bool, variant string) {
	if n.exact != nil {
		if n.exact[name] {
			return true, ""
		}
		return false, n.folded[folded]
	}
	for _, s := range n.list {
		if s.name == name {
			return true, ""
		}
		if s.folded == folded && variant == "" {
			variant = s.name
		}
	}
	return false, variant
}

func (m *memberCheck) object(at *loc) {
	m.i++ // {
	var seen names
	for {
		m.ws()
		if m.i >= len(m.b) || m.b[m.i] == '}' {
			m.i++
			return
		}
		if m.b[m.i] == ',' {
			m.i++
			continue
		}
		quoted, escaped := m.str()
		name := decodeName(quoted, escaped)
		m.ws()
		m.i++ // :
		m.name(at, name, &seen)
		m.value(&loc{parent: at, key: name})
	}
}

// name checks one member name against the declared names and the names
// before it in its object, and adds it to them.
func (m *memberCheck) name(at *loc, name string, seen *names) {
	f := wire.Fold(name)
	same, variant := seen.find(name, f)
	if !same {
		seen.add(name, f)
	}
	if len(m.fields) >= MaxFieldErrors && (same || variant != "" || m.names.folded[f] != "") {
		m.more++
		return
	}
	if d, ok := m.names.folded[f]; ok && !m.names.exact[name] {
		p := fields.PathKey(at.String(), name)
		msg := fields.UnknownMessage(at.String(), p) + fmt.Sprintf("; did you mean %q? (a reader that ignores letter case would read it as %s)", d, d)
		m.add(envelope.FieldError{Field: p, Rule: "unknown", Suggestion: d, Message: msg})
		return
	}
	switch {
	case same:
		p := fields.PathKey(at.String(), name)
		m.add(envelope.FieldError{Field: p, Rule: "duplicate",
			Message: p + " is sent more than once, and readers differ on which one they keep: send it once"})
	case variant != "":
		if _, ok := m.names.folded[f]; ok {
			return // the case variant is reported
		}
		p := fields.PathKey(at.String(), name)
		m.add(envelope.FieldError{Field: p, Rule: "duplicate",
			Message: fmt.Sprintf("%s and %s differ only in letter case, and a reader that ignores case takes one for the other: send one", p, fields.PathKey(at.String(), variant))})
	}
}

func (m *memberCheck) array(at *loc) {
	m.i++ // [
	for k := 0; ; k++ {
		m.ws()
		if m.i >= len(m.b) || m.b[m.i] == ']' {
			m.i++
			return
		}
		if m.b[m.i] == ',' {
			m.i++
		}
		m.value(&loc{parent: at, index: k, elem: true})
	}
}

// propertyNames are the property names a schema declares, anywhere in
// it: a member that matches none exactly but one of them folded is a
// case variant.
type propertyNames struct {
	exact  map[string]bool
	folded map[string]string // folded name -> a declared name
}

func declaredNames(s *jsonschema.Schema) *propertyNames {
	n := &propertyNames{exact: map[string]bool{}, folded: map[string]string{}}
	eachSchema(s, func(s *jsonschema.Schema) {
		for name := range s.Properties {
			n.exact[name] = true
			f := wire.Fold(name)
			if d, ok := n.folded[f]; !ok || name < d {
				n.folded[f] = name
			}
		}
	})
	return n
}

// eachSchema calls visit once for each schema reachable from root, a
// schema before those under it.
func eachSchema(root *jsonschema.Schema, visit func(*jsonschema.Schema)) {
	seen := map[*jsonschema.Schema]bool{}
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		visit(s)
		for _, sub := range subschemas(s) {
			walk(sub)
		}
	}
	walk(root)
}

// decodeName is a member name as encoding/json decodes it: escapes
// decoded, invalid UTF-8 replaced.
func decodeName(quoted []byte, escaped bool) string {
	if len(quoted) < 2 {
		return "" // not a string: the scan before refused the arguments
	}
	if !escaped && utf8.Valid(quoted) {
		return string(quoted[1 : len(quoted)-1])
	}
	var s string
	_ = json.Unmarshal(quoted, &s)
	return s
}

// noNames declares nothing: the member check without a schema.
var noNames = &propertyNames{}

// Members refuses arguments, JSON text, whose members readers would read
// differently, for a front that has no enforced schema to check them
// against (a tool without one, or whose check is off): a member sent more
// than once, or two members of one object that differ only in letter
// case, at any depth, each named in a validation_error, as
// [Checker.Check] names them. Text nested deeper than [DefaultMaxDepth]
// or not JSON is refused too. It returns nil for arguments every reader
// reads alike.
func Members(raw []byte) error {
	s := scanner{b: raw, maxDepth: DefaultMaxDepth}
	if !s.value(0) || !s.end() {
		if s.tooDeep {
			return failFields(fatal("", "depth", strconv.Itoa(DefaultMaxDepth),
				fmt.Sprintf("the arguments nest objects and arrays more than %d levels deep", DefaultMaxDepth)), 0)
		}
		return failFields(fatal("", "json", "", "the arguments are not valid JSON"), 0)
	}
	if fe, more := ambiguousMembers(raw, noNames); len(fe) > 0 {
		return failFields(fe, more)
	}
	return nil
}
