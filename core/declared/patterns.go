package declared

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpguard/mcpguard/core/internal/ecma"
)

// patternBudget bounds the pattern work of one check: the characters
// matched times the size of the pattern's program, summed over the
// call. RE2 is linear in the input, but its factor is the program's size:
// measured on a loaded 2-core machine, 4 to 50 ns per character and
// instruction, so an unanchored 63-instruction pattern took 1.5 s on a
// 1 MiB argument. At this budget a call's patterns cost at most about
// 200 ms of CPU, and typically 20 ms; a call that needs more is refused
// (rule size), never passed unchecked.
const patternBudget = 1 << 22

// budget is the pattern work left to one check. Each compiled instance of
// a schema has its own, and a check holds its instance alone.
type budget struct {
	left int
	over bool // a pattern was not run: the call is refused
}

// pattern is a declared pattern as the check runs it: after the cheap
// keywords of its schema (a value they refuse is refused whatever the
// pattern says, so the pattern is not run), and within the call's budget.
type pattern struct {
	re     *regexp.Regexp
	source string
	cost   int // instructions of the program
	b      *budget
	// The cheap keywords of the schema the pattern belongs to.
	minLen, maxLen int // -1: none
	enum           []any
	err            error // RE2 cannot express it: the keyword is not enforced
}

func (p *pattern) String() string { return p.source }

// MatchString implements jsonschema.Regexp.
func (p *pattern) MatchString(s string) bool {
	if p.re == nil || p.refusedCheaply(s) {
		return true
	}
	if !p.charge(&p.b.left, len(s)) {
		p.b.over = true
		return false
	}
	return p.re.MatchString(s)
}

// charge takes the cost of matching n characters from left, reporting
// false, and taking nothing, when left does not cover it. It divides
// rather than multiplies, so that no product overflows a 32-bit int.
func (p *pattern) charge(left *int, n int) bool {
	n = max(n, 1)
	if n > *left/p.cost {
		return false
	}
	*left -= n * p.cost
	return true
}

// refusedCheaply reports a value the schema's length or enum keywords
// refuse anyway.
func (p *pattern) refusedCheaply(s string) bool {
	if p.minLen >= 0 || p.maxLen >= 0 {
		n := utf8.RuneCountInString(s)
		if p.minLen >= 0 && n < p.minLen || p.maxLen >= 0 && n > p.maxLen {
			return true
		}
	}
	return p.enum != nil && !slices.Contains(p.enum, any(s))
}

// patternEngine compiles patterns for one compiled instance, charging b.
// A pattern is ECMA-262, as JSON Schema says: core/internal/ecma
// translates it to the RE2 program of the same meaning (\s is ECMA's
// white space, "." stops at \r). One RE2 cannot express (an ECMA
// lookahead such as ^(?!admin)) does not fail the schema: it is kept as a
// pattern that matches everything, and preparePatterns takes it out and
// says so.
func patternEngine(b *budget) jsonschema.RegexpEngine {
	return func(source string) (jsonschema.Regexp, error) {
		re, err := ecma.Compile(source)
		if err != nil {
			return &pattern{source: source, err: err, b: b}, nil
		}
		return &pattern{re: re, source: source, cost: programSize(re.String()), b: b, minLen: -1, maxLen: -1}, nil
	}
}

// programSize is the number of instructions of expr's RE2 program, the
// factor of its cost per character.
func programSize(expr string) int {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return 1
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 1
	}
	return max(len(prog.Inst), 1)
}

// disabledKeyword is a keyword of a declared schema that is not enforced.
type disabledKeyword struct {
	location string // the JSON pointer of its schema ("/properties/role")
	keyword  string
	err      error
}

// preparePatterns gives each pattern of the compiled schema its schema's
// cheap keywords, and takes out the patterns RE2 cannot express,
// returning them.
func preparePatterns(root *jsonschema.Schema) []disabledKeyword {
	var off []disabledKeyword
	eachSchema(root, func(s *jsonschema.Schema) {
		if p, ok := s.Pattern.(*pattern); ok {
			if p.err != nil {
				off = append(off, disabledKeyword{pointer(s.Location), "pattern", p.err})
				s.Pattern = nil
			} else {
				guard(p, s)
			}
		}
		for k := range s.PatternProperties {
			if p, ok := k.(*pattern); ok && p.err != nil {
				off = append(off, disabledKeyword{pointer(s.Location), "patternProperties", p.err})
				delete(s.PatternProperties, k)
			}
		}
	})
	slices.SortFunc(off, func(a, b disabledKeyword) int { return strings.Compare(a.location, b.location) })
	return off
}

func guard(p *pattern, s *jsonschema.Schema) {
	if s.MinLength != nil {
		p.minLen = *s.MinLength
	}
	if s.MaxLength != nil {
		p.maxLen = *s.MaxLength
	}
	if s.Enum != nil {
		p.enum = s.Enum.Values
	}
}

// pointer is the JSON pointer part of a schema's location.
func pointer(location string) string {
	if i := strings.IndexByte(location, '#'); i >= 0 {
		location = location[i+1:]
	}
	if location == "" {
		return "/"
	}
	return location
}
