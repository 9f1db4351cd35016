package ecma

import (
	"fmt"
	"strings"
	"unicode"
)

// span is a range of code points, both ends included.
type span struct{ lo, hi rune }

// ECMA-262's WhiteSpace and LineTerminator (what \s matches), and its
// LineTerminator alone (what "." does not match). Unicode's Space_Separator
// has not changed since Unicode 6.3 took U+180E out.
var (
	whiteSpaceSpans = []span{
		{'\t', '\r'}, {' ', ' '}, {0xA0, 0xA0}, {0x1680, 0x1680}, {0x2000, 0x200A},
		{0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}, {0xFEFF, 0xFEFF},
	}
	lineTerminatorSpans = []span{{'\n', '\n'}, {'\r', '\r'}, {0x2028, 0x2029}}
)

// The insides of Go character classes: ECMA's \s and \S, every character,
// and the RE2 spellings of "." and of a class that matches nothing.
var (
	whiteSpace    = spellSpans(whiteSpaceSpans)
	notWhiteSpace = spellSpans(complement(whiteSpaceSpans))
	anyChar       = spellSpans([]span{{0, unicode.MaxRune}})
	dot           = "[^" + spellSpans(lineTerminatorSpans) + "]"
	never         = "[^" + anyChar + "]"
)

// spell writes one character as a Go escape, which reads the same in a
// class and out of one.
func spell(r rune) string { return fmt.Sprintf(`\x{%X}`, r) }

func spellSpans(spans []span) string {
	var b strings.Builder
	for _, s := range spans {
		b.WriteString(spell(s.lo))
		if s.hi != s.lo {
			b.WriteString("-" + spell(s.hi))
		}
	}
	return b.String()
}

// complement is every code point that sorted, disjoint spans leave out.
func complement(spans []span) []span {
	var out []span
	next := rune(0)
	for _, s := range spans {
		if s.lo > next {
			out = append(out, span{next, s.lo - 1})
		}
		next = s.hi + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, span{next, unicode.MaxRune})
	}
	return out
}

// bracket is a Go class of inside: one that matches nothing (or, negated,
// everything) when inside is empty, which Go's syntax cannot spell as [].
func bracket(inside string, negate bool) string {
	switch {
	case inside == "" && negate:
		return "[" + anyChar + "]"
	case inside == "":
		return never
	case negate:
		return "[^" + inside + "]"
	}
	return "[" + inside + "]"
}

// classAtom is a character of a class, or a class escape in it (set).
type classAtom struct {
	r     rune
	set   string
	isSet bool
}

// class writes a character class after its "[".
func (t *translator) class(at int) error {
	negate := t.peek() == '^'
	if negate {
		t.i++
	}
	var inside strings.Builder
	for {
		if t.i >= len(t.src) {
			return errorf(at, "a character class is not closed")
		}
		if t.peek() == ']' {
			t.i++
			break
		}
		a, err := t.classAtom()
		if err != nil {
			return err
		}
		if a.isSet || t.peek() != '-' || t.i+1 >= len(t.src) || t.src[t.i+1] == ']' {
			inside.WriteString(a.spelled())
			continue
		}
		dash := t.i
		t.i++
		b, err := t.classAtom()
		switch {
		case err != nil:
			return err
		case b.isSet: // Annex B: a class escape ends no range, and the "-" is itself
			inside.WriteString(a.spelled() + spell('-') + b.spelled())
		case b.r < a.r:
			return errorf(dash, "the range %s-%s of a class is out of order", spell(a.r), spell(b.r))
		default:
			inside.WriteString(spell(a.r) + "-" + spell(b.r))
		}
	}
	t.write(bracket(inside.String(), negate), true)
	return nil
}

func (a classAtom) spelled() string {
	if a.isSet {
		return a.set
	}
	return spell(a.r)
}

// classAtom reads one character or class escape of a class.
func (t *translator) classAtom() (classAtom, error) {
	at := t.i
	c := t.next()
	if c != '\\' {
		return classAtom{r: c}, nil
	}
	if t.i >= len(t.src) {
		return classAtom{}, errorf(at, `the pattern ends with a "\"`)
	}
	switch c = t.next(); c {
	case 'd', 'D', 'w', 'W':
		return classAtom{set: `\` + string(c), isSet: true}, nil
	case 's', 'S', 'p', 'P':
		set, err := t.set(at, c)
		return classAtom{set: set, isSet: true}, err
	}
	r, err := t.char(at, c, true)
	return classAtom{r: r}, err
}

// property reads the {name} of a \p or \P escape, as the inside of a Go
// class.
func (t *translator) property(at int, negate bool) (string, error) {
	end := strings.IndexByte(t.src[t.i:], '}')
	if t.peek() != '{' || end < 0 {
		return "", errorf(at, `\p and \P need a {name} with the u flag`)
	}
	body := t.src[t.i+1 : t.i+end]
	t.i += end + 1
	var spans []span
	goName := ""
	name, value, eq := strings.Cut(body, "=")
	switch {
	case eq && (name == "General_Category" || name == "gc"):
		goName = category(value)
	case eq && (name == "Script" || name == "sc"):
		if _, ok := unicode.Scripts[value]; ok {
			goName = value
		}
	case body == "Any":
		spans = []span{{0, unicode.MaxRune}}
	case body == "ASCII":
		spans = []span{{0, 0x7F}}
	case !eq:
		goName = category(body)
	}
	switch {
	case spans != nil && negate:
		return spellSpans(complement(spans)), nil
	case spans != nil:
		return spellSpans(spans), nil
	case goName == "":
		return "", errorf(at, `the property \p{%s} is not one Go's tables hold: use a General_Category short name (L, Lu, Nd), Script= with a script's long name, ASCII or Any`, body)
	case negate:
		return `\P{` + goName + `}`, nil
	}
	return `\p{` + goName + `}`, nil
}

// category returns v when it is a General_Category short name Go's tables
// hold, "" otherwise.
func category(v string) string {
	if _, ok := unicode.Categories[v]; ok {
		return v
	}
	return ""
}
