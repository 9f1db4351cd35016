package declared

import (
	"encoding/json"
	"math"
	"math/big"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// flatSchema is the form of most declared schemas, read off the compiled
// schema: an object of scalar properties with a type, an enum of strings,
// numeric bounds, string lengths and a pattern, required members and
// additionalProperties: true or false. For it, a call that is valid is
// recognized without allocating; anything else, every invalid call
// included, goes to the library, whose verdict and errors are the
// answer. So the fast path can only say "valid" where the library would
// (TestDeclaredFastPathAgreesWithTheLibrary holds it to that); the
// library stays the one validator.
type flatSchema struct {
	props    map[string]*flatProp
	required []string
	closed   bool // additionalProperties: false
}

type flatProp struct {
	bit      uint64           // this property's bit among those seen, 0 beyond 64
	types    jsonschema.Types // the declared type: one of string, integer, number, boolean
	enum     []string
	lengths  bool // minLength or maxLength is declared
	minLen   int
	maxLen   int      // math.MaxInt: none
	pattern  *pattern // nil: none
	lo, hi   float64  // inclusive bounds; ±Inf: none
	xlo, xhi bool     // the bounds are exclusive
}

var (
	typeString  = types("string")
	typeInteger = types("integer")
	typeNumber  = types("number")
	typeBoolean = types("boolean")
	typeObject  = types("object")
)

func types(t string) jsonschema.Types {
	var tt jsonschema.Types
	tt.Add(t)
	return tt
}

// flatten returns s as a flatSchema, or nil when it has any keyword the
// fast path does not read.
func flatten(s *jsonschema.Schema) *flatSchema {
	if !plainObject(s) {
		return nil
	}
	f := &flatSchema{props: make(map[string]*flatProp, len(s.Properties)), required: slices.Clone(s.Required)}
	switch a := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		f.closed = !a
	default:
		return nil
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for i, name := range names {
		fp := flatProperty(s.Properties[name])
		if fp == nil {
			return nil
		}
		fp.bit = 1 << i // 0 from the 65th on: a shift past the width is 0
		f.props[name] = fp
	}
	return f
}

// plainObject reports a schema of "type": "object" with nothing but
// properties, required and additionalProperties.
func plainObject(s *jsonschema.Schema) bool {
	return s.Bool == nil && s.Types != nil && *s.Types == typeObject && !composite(s) &&
		s.MaxProperties == nil && s.MinProperties == nil && s.PropertyNames == nil && len(s.PatternProperties) == 0 &&
		len(s.Dependencies) == 0 && len(s.DependentRequired) == 0 && len(s.DependentSchemas) == 0 && s.UnevaluatedProperties == nil &&
		s.Enum == nil && s.Const == nil
}

// composite reports keywords that combine or refer to other schemas, or
// that the library checks in ways of its own.
func composite(s *jsonschema.Schema) bool {
	return s.Ref != nil || s.RecursiveRef != nil || s.DynamicRef != nil || s.Not != nil || len(s.AllOf) > 0 ||
		len(s.AnyOf) > 0 || len(s.OneOf) > 0 || s.If != nil || s.Then != nil || s.Else != nil || s.Format != nil ||
		len(s.Extensions) > 0 || s.ContentEncoding != nil || s.ContentMediaType != nil || s.ContentSchema != nil
}

func flatProperty(p *jsonschema.Schema) *flatProp {
	if p.Bool != nil || p.Types == nil || composite(p) || p.Const != nil || p.MultipleOf != nil {
		return nil
	}
	t := *p.Types
	if t != typeString && t != typeInteger && t != typeNumber && t != typeBoolean {
		return nil
	}
	fp := &flatProp{types: t, maxLen: math.MaxInt}
	switch re := p.Pattern.(type) {
	case nil:
	case *pattern:
		fp.pattern = re
	default:
		return nil
	}
	fp.lengths = p.MinLength != nil || p.MaxLength != nil
	if p.MinLength != nil {
		fp.minLen = *p.MinLength
	}
	if p.MaxLength != nil {
		fp.maxLen = *p.MaxLength
	}
	if p.Enum != nil {
		for _, v := range p.Enum.Values {
			s, ok := v.(string)
			if !ok || t != typeString {
				return nil
			}
			fp.enum = append(fp.enum, s)
		}
	}
	ok := true
	fp.lo, fp.xlo, ok = lower(p.Minimum, p.ExclusiveMinimum, ok)
	fp.hi, fp.xhi, ok = upper(p.Maximum, p.ExclusiveMaximum, ok)
	if !ok {
		return nil
	}
	return fp
}

// lower is the tighter of minimum and exclusiveMinimum as a float64,
// refusing (ok false) a bound a float64 does not hold exactly.
func lower(incl, excl *big.Rat, ok bool) (float64, bool, bool) {
	lo, x := math.Inf(-1), false
	if incl != nil {
		f, exact := incl.Float64()
		ok = ok && exact
		lo = f
	}
	if excl != nil {
		f, exact := excl.Float64()
		ok = ok && exact
		if f >= lo {
			lo, x = f, true
		}
	}
	return lo, x, ok
}

func upper(incl, excl *big.Rat, ok bool) (float64, bool, bool) {
	hi, x := math.Inf(1), false
	if incl != nil {
		f, exact := incl.Float64()
		ok = ok && exact
		hi = f
	}
	if excl != nil {
		f, exact := excl.Float64()
		ok = ok && exact
		if f <= hi {
			hi, x = f, true
		}
	}
	return hi, x, ok
}

// valid reports that doc is certainly valid; false means "ask the
// library", never "invalid".
// fast reports a call that the fast path finds valid: the decoded
// arguments when the SDK handed them over, else their JSON text.
func (f *flatSchema) fast(raw []byte, decoded any) bool {
	left := patternBudget
	if raw == nil {
		return f.valid(decoded, &left)
	}
	return f.validRaw(raw, &left)
}

func (f *flatSchema) valid(doc any, left *int) bool {
	m, ok := doc.(map[string]any)
	if !ok {
		return false
	}
	for _, r := range f.required {
		if _, ok := m[r]; !ok {
			return false
		}
	}
	for k, v := range m {
		p := f.props[k]
		if p == nil {
			if f.closed || !scalar(v) {
				return false // the library reads it, within the depth bound
			}
			continue
		}
		if !p.valid(v, left) {
			return false
		}
	}
	return true
}

func (p *flatProp) valid(v any, left *int) bool {
	switch p.types {
	case typeString:
		s, ok := v.(string)
		return ok && p.validString(s, left)
	case typeBoolean:
		_, ok := v.(bool)
		return ok
	}
	n, ok := exactNumber(v)
	if !ok || p.types == typeInteger && n != math.Trunc(n) {
		return false
	}
	if n < p.lo || n > p.hi || p.xlo && n == p.lo || p.xhi && n == p.hi {
		return false
	}
	return true
}

// validString checks the cheap keywords first, and the pattern within the
// call's budget left: past it, the library judges, within its own.
func (p *flatProp) validString(s string, left *int) bool {
	if p.lengths {
		if n := utf8.RuneCountInString(s); n < p.minLen || n > p.maxLen {
			return false
		}
	}
	if p.enum != nil && !slices.Contains(p.enum, s) {
		return false
	}
	if p.pattern == nil {
		return true
	}
	return p.pattern.charge(left, len(s)) && p.pattern.re.MatchString(s)
}

// exactNumber is v as a float64 when that is v's exact value: a float64
// as an SDK decoded it, or a json.Number that is an integer a float64
// holds exactly.
func exactNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case json.Number:
		return exactInteger(string(x))
	}
	return 0, false
}

// maxExact is the largest magnitude up to which a float64 holds every
// integer: 2⁵³.
const maxExact = 1 << 53

// exactInteger is the decimal integer s as a float64 when its magnitude is
// at most 2⁵³, where the float64 is exact; a larger one would be compared
// with the bounds rounded.
func exactInteger(s string) (float64, bool) {
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil || i > maxExact || i < -maxExact {
		return 0, false
	}
	return float64(i), true
}

// validRaw is valid for the arguments' JSON text, read in one pass
// without decoding it: an object of plain members (no escapes, no
// nesting, each declared and sent once) whose values are plain scalars.
// Anything else is the library's, a member sent twice included, which
// Check refuses.
func (f *flatSchema) validRaw(b []byte, left *int) bool {
	if len(f.props) > 64 {
		return false
	}
	d := flatReader{b: b}
	d.ws()
	if !d.lit('{') {
		return false
	}
	var seen uint64
	d.ws()
	if !d.lit('}') {
		for {
			d.ws()
			key, ok := d.plainString()
			if d.ws(); !ok || !d.lit(':') {
				return false
			}
			d.ws()
			p := f.props[text(key)]
			if p == nil || seen&p.bit != 0 || p.bit == 0 || !p.validRaw(&d, left) {
				return false // an unknown member's value may be anything: the library reads it
			}
			seen |= p.bit
			if d.ws(); d.lit('}') {
				break
			}
			if !d.lit(',') {
				return false
			}
		}
	}
	for _, r := range f.required {
		if p := f.props[r]; p == nil || seen&p.bit == 0 {
			return false
		}
	}
	return d.end()
}

func (p *flatProp) validRaw(d *flatReader, left *int) bool {
	switch p.types {
	case typeString:
		s, ok := d.plainString()
		return ok && p.validString(text(s), left)
	case typeBoolean:
		return d.word("true") || d.word("false")
	}
	t, integer, ok := d.number()
	if !ok || p.types == typeInteger && !integer {
		return false
	}
	if integer {
		if n, ok := exactInteger(text(t)); ok {
			return p.valid(n, left)
		}
	}
	// A rounded value strictly inside exact bounds is inside them; one
	// that rounds onto a bound is the library's to judge.
	n, err := strconv.ParseFloat(text(t), 64)
	if err != nil || math.IsInf(n, 0) || n <= p.lo || n >= p.hi {
		return false
	}
	return true
}

func scalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}
