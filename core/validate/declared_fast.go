package validate

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
	minLen   int
	maxLen   int // -1: none
	pattern  jsonschema.Regexp
	lo, hi   float64 // inclusive bounds; ±Inf: none
	xlo, xhi bool    // the bounds are exclusive
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
		if i < 64 {
			fp.bit = 1 << i
		}
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
	fp := &flatProp{types: t, maxLen: -1, pattern: p.Pattern, lo: math.Inf(-1), hi: math.Inf(1)}
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
func (f *flatSchema) valid(doc any) bool {
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
		if !p.valid(v) {
			return false
		}
	}
	return true
}

func (p *flatProp) valid(v any) bool {
	switch p.types {
	case typeString:
		s, ok := v.(string)
		return ok && p.validString(s)
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

func (p *flatProp) validString(s string) bool {
	if p.minLen > 0 || p.maxLen >= 0 {
		n := utf8.RuneCountInString(s)
		if n < p.minLen || p.maxLen >= 0 && n > p.maxLen {
			return false
		}
	}
	if p.enum != nil && !slices.Contains(p.enum, s) {
		return false
	}
	return p.pattern == nil || p.pattern.MatchString(s)
}

// exactNumber is v as a float64 when that is v's exact value: a float64
// as an SDK decoded it, or a json.Number of at most 15 digits, no
// fraction and no exponent.
func exactNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case json.Number:
		s := string(x)
		if len(s) == 0 || len(s) > 16 {
			return 0, false
		}
		for i := 0; i < len(s); i++ {
			if c := s[i]; (c < '0' || c > '9') && !(i == 0 && c == '-') {
				return 0, false
			}
		}
		i, err := strconv.ParseInt(s, 10, 64)
		return float64(i), err == nil
	}
	return 0, false
}

// validRaw is valid for the arguments' JSON text, read in one pass
// without decoding it: an object of plain members (no escapes, no
// nesting) whose values are plain scalars. A member sent twice is checked
// twice: the library, which keeps the last, sees one of the values found
// valid. Anything else is the library's.
func (f *flatSchema) validRaw(b []byte) bool {
	if len(f.props) > 64 {
		return false
	}
	d := flatDecoder{b: b}
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
			if p == nil || !p.validRaw(&d) {
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

func (p *flatProp) validRaw(d *flatDecoder) bool {
	switch p.types {
	case typeString:
		s, ok := d.plainString()
		return ok && p.validString(text(s))
	case typeBoolean:
		return d.word("true") || d.word("false")
	}
	t, integer, ok := d.number()
	if !ok || p.types == typeInteger && !integer {
		return false
	}
	if integer && len(t) <= 16 {
		i, err := strconv.ParseInt(text(t), 10, 64)
		if err != nil || math.Abs(float64(i)) > 1<<53 {
			return false
		}
		return p.valid(float64(i))
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
