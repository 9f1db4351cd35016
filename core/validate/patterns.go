package validate

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-playground/validator/v10"

	"github.com/mcpguard/mcpguard/core/internal/ecma"
)

// Validator is a *validator.Validate together with the named patterns
// registered on it. Schema derivation needs both: a pattern tag is a
// validation function to validator/v10 and a "pattern" keyword to JSON
// Schema, and both come from the one regular expression kept here.
//
// Register patterns and custom tags before the first call is served;
// like validator/v10 itself, registration is not meant to race with
// validation.
type Validator struct {
	v        *validator.Validate
	mu       sync.RWMutex
	patterns map[string]*namedPattern
	gen      atomic.Uint64 // bumped by every registration, invalidating derived schemas
}

type namedPattern struct {
	source string // as registered
	expr   string // anchored, as published in the schema
	re     *regexp.Regexp
}

// New wraps v, which may carry custom validations, aliases and struct-level
// rules. A nil v gets a fresh validator.New(). Validators registered on v
// directly are runtime-only as far as the schema is concerned: they are
// stated in the property's description and listed by [RuntimeOnly].
func New(v *validator.Validate) *Validator {
	if v == nil {
		v = validator.New()
	}
	return &Validator{v: v, patterns: map[string]*namedPattern{}}
}

var defaultValidator = New(nil)

// Default returns the shared Validator that binders, outputs and schemas
// use unless given [WithValidator].
func Default() *Validator { return defaultValidator }

// Engine returns the wrapped *validator.Validate, for registering custom
// validations on it.
func (v *Validator) Engine() *validator.Validate { return v.v }

// RegisterPattern registers a named pattern on the default Validator; see
// [Validator.RegisterPattern].
func RegisterPattern(name, expr string) { defaultValidator.RegisterPattern(name, expr) }

// RegisterPattern makes validate:"name" check string fields against expr,
// and makes derived schemas state the same expression as the property's
// "pattern". The expression is anchored: it is always wrapped as
// ^(?:expr)$, so it must match the whole value on both sides.
//
// expr must use the subset of regular-expression syntax that Go's RE2 and
// ECMA-262 (what JSON Schema validators such as ajv and
// santhosh-tekuri/jsonschema use) read identically: literals, escaped
// metacharacters (\. \/ \( ...; \- only inside a class), character classes with ranges and
// negation, \d \D \w \W, \t \n \r \f \v, \xHH, groups ( ) and (?: ),
// alternation, and the quantifiers * + ? {n} {n,} {n,m} with optional lazy ?.
// It must not use "." (which differs on line terminators; write [^\n]
// or a class), \s \S (whose Unicode sets differ), \b \B, \p, POSIX classes,
// inline flags, named groups, lookaround, backreferences or \A \z.
//
// Registering a name again with the same expression does nothing, so a
// server constructor that registers its patterns may run more than once.
// RegisterPattern panics on an invalid name, a name already registered to
// a different expression, or an expression outside the subset, so a bad
// pattern fails at start-up, not at call time.
func (v *Validator) RegisterPattern(name, expr string) {
	if !validTagName(name) {
		panic(fmt.Sprintf("validate: pattern name %q must be lower-case letters, digits and underscores", name))
	}
	if _, reserved := interpreted[name]; reserved {
		panic(fmt.Sprintf("validate: pattern name %q is a validator/v10 tag", name))
	}
	if err := checkPortable(expr); err != nil {
		panic(fmt.Sprintf("validate: pattern %q: %v", name, err))
	}
	// Always wrapped: "^a|b$" starts with ^ and ends with $, yet
	// matches "b; DROP TABLE" unless the whole alternation is grouped.
	// The check runs what the schema states, read as JSON Schema reads
	// it (ECMA-262), by the translator core/declared runs patterns with.
	anchored := "^(?:" + expr + ")$"
	re, err := ecma.Compile(anchored)
	if err != nil {
		panic(fmt.Sprintf("validate: pattern %q: %v", name, err))
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if old, dup := v.patterns[name]; dup {
		if old.source == expr {
			return // a constructor that registers its patterns ran again
		}
		panic(fmt.Sprintf("validate: pattern %q is already registered as %q", name, old.source))
	}
	err = v.v.RegisterValidation(name, func(fl validator.FieldLevel) bool {
		f := fl.Field()
		return f.Kind() == reflect.String && re.MatchString(f.String())
	})
	if err != nil {
		panic(fmt.Sprintf("validate: pattern %q: %v", name, err))
	}
	v.patterns[name] = &namedPattern{source: expr, expr: anchored, re: re}
	v.gen.Add(1)
}

// Pattern returns the anchored expression registered under name.
func (v *Validator) Pattern(name string) (expr string, ok bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	p, ok := v.patterns[name]
	if !ok {
		return "", false
	}
	return p.expr, true
}

func (v *Validator) pattern(name string) *namedPattern {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.patterns[name]
}

func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return true
}

// checkPortable refuses regular-expression syntax that RE2 and ECMA-262
// would read differently, or that one of them rejects.
func checkPortable(expr string) error {
	if expr == "" {
		return fmt.Errorf("empty expression")
	}
	inClass := false
	classStart := -1
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case c == '\\':
			if i+1 >= len(expr) {
				return fmt.Errorf("trailing backslash")
			}
			i++
			e := expr[i]
			switch {
			case strings.IndexByte("dDwWtnrfv", e) >= 0:
			case e == 'x':
				if i+2 >= len(expr) || !isHex(expr[i+1]) || !isHex(expr[i+2]) {
					return fmt.Errorf(`\x must be followed by exactly two hex digits`)
				}
				i += 2
			case strings.IndexByte(`^$\.*+?()[]{}|/`, e) >= 0:
			case e == '-' && inClass:
			default:
				return fmt.Errorf(`escape \%c is not read the same by Go and JSON Schema validators`, e)
			}
		case inClass:
			switch c {
			case ']':
				if i == classStart {
					return fmt.Errorf("empty character class")
				}
				inClass = false
			case '[':
				return fmt.Errorf(`unescaped "[" inside a character class; write \[`)
			}
		case c == '[':
			inClass = true
			classStart = i + 1
			if i+1 < len(expr) && expr[i+1] == '^' {
				classStart = i + 2
				i++
			}
		case c == '.':
			return fmt.Errorf(`"." differs on line terminators; write a character class such as [^\n]`)
		case c == '(':
			if i+1 < len(expr) && expr[i+1] == '?' {
				if i+2 < len(expr) && expr[i+2] == ':' {
					i += 2
					continue
				}
				return fmt.Errorf("only (?: ) groups are portable; no flags, names or lookaround")
			}
		case c == '{':
			j := i + 1
			for j < len(expr) && (expr[j] >= '0' && expr[j] <= '9' || expr[j] == ',') {
				j++
			}
			q := expr[i+1 : min(j, len(expr))]
			if j >= len(expr) || expr[j] != '}' || q == "" || q[0] == ',' || strings.Count(q, ",") > 1 {
				return fmt.Errorf(`"{" must start a quantifier {n}, {n,} or {n,m}; escape a literal one as \{`)
			}
			i = j
		case c == '}' || c == ']':
			return fmt.Errorf("unescaped %q; escape it with a backslash", c)
		}
	}
	if inClass {
		return fmt.Errorf("unterminated character class")
	}
	return nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
