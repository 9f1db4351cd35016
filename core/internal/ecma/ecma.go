package ecma

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Translate returns the Go regexp syntax of the ECMA-262 pattern source,
// read as the package doc says, or an error that names the construct Go's
// RE2 cannot express or ECMA-262 does not define, and where it starts.
// An unbalanced parenthesis is left to Go's parser: use [Compile].
func Translate(source string) (string, error) {
	t := translator{src: source}
	if err := t.run(); err != nil {
		return "", err
	}
	return t.out.String(), nil
}

// Compile translates source and compiles the result with Go's regexp.
func Compile(source string) (*regexp.Regexp, error) {
	expr, err := Translate(source)
	if err != nil {
		return nil, err
	}
	return regexp.Compile(expr)
}

// errorf is a refusal of the construct that starts at byte at.
func errorf(at int, format string, args ...any) error {
	return fmt.Errorf("%s (at byte %d of the pattern)", fmt.Sprintf(format, args...), at)
}

// translator reads an ECMA-262 pattern once, left to right, and writes
// its RE2 spelling.
type translator struct {
	src string
	i   int // the next byte to read
	out strings.Builder
	// atom says whether what was written last may take a quantifier: not
	// the start, "(", "|", an assertion or a quantifier.
	atom bool
}

func (t *translator) next() rune {
	r, size := utf8.DecodeRuneInString(t.src[t.i:])
	t.i += size
	return r
}

// peek returns the next byte, or 0 at the end.
func (t *translator) peek() byte {
	if t.i < len(t.src) {
		return t.src[t.i]
	}
	return 0
}

func (t *translator) write(s string, atom bool) {
	t.out.WriteString(s)
	t.atom = atom
}

func (t *translator) run() error {
	for t.i < len(t.src) {
		at := t.i
		var err error
		switch r := t.next(); r {
		case '\\':
			err = t.escape(at)
		case '[':
			err = t.class(at)
		case '(':
			err = t.group(at)
		case ')':
			t.write(")", true)
		case '.':
			t.write(dot, true)
		case '^', '$', '|':
			t.write(string(r), false)
		case '*', '+', '?':
			err = t.quantifier(at, string(r))
		case '{':
			if q, ok := t.braces(); ok {
				err = t.quantifier(at, q)
			} else {
				t.write(`\{`, true) // Annex B: a brace that starts no quantifier is itself
			}
		default:
			t.write(regexp.QuoteMeta(string(r)), true)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// quantifier writes q, and the "?" that makes it lazy.
func (t *translator) quantifier(at int, q string) error {
	if !t.atom {
		return errorf(at, "the quantifier %q has nothing to repeat", q)
	}
	if t.peek() == '?' {
		t.i++
		q += "?"
	}
	t.write(q, false)
	return nil
}

// braces reads a quantifier {n}, {n,} or {n,m} after its "{", or
// nothing.
func (t *translator) braces() (string, bool) {
	end := strings.IndexByte(t.src[t.i:], '}')
	if end < 0 {
		return "", false
	}
	body := t.src[t.i : t.i+end]
	lo, hi, comma := strings.Cut(body, ",")
	if !digits(lo) || comma && hi != "" && !digits(hi) {
		return "", false
	}
	t.i += end + 1
	return "{" + body + "}", true
}

func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// group writes a group after its "(": a plain or named one as a group,
// refusing lookaround and anything else that starts "(?".
func (t *translator) group(at int) error {
	rest := t.src[t.i:]
	switch {
	case !strings.HasPrefix(rest, "?"):
		t.write("(", false)
	case strings.HasPrefix(rest, "?:"):
		t.i += 2
		t.write("(?:", false)
	case strings.HasPrefix(rest, "?="), strings.HasPrefix(rest, "?!"):
		return errorf(at, "the lookahead %q cannot be checked: Go's RE2 has no lookaround", "("+rest[:2])
	case strings.HasPrefix(rest, "?<="), strings.HasPrefix(rest, "?<!"):
		return errorf(at, "the lookbehind %q cannot be checked: Go's RE2 has no lookaround", "("+rest[:3])
	case strings.HasPrefix(rest, "?<"):
		end := strings.IndexByte(rest, '>')
		if end < 0 || !groupName(rest[2:end]) {
			return errorf(at, "a named group needs (?<name>...)")
		}
		t.i += end + 1
		t.write("(", false) // a name changes no match
	default:
		return errorf(at, "the group %q is not ECMA-262: no inline flags, and lookaround is (?= (?! (?<= (?<!", "("+rest[:min(len(rest), 2)])
	}
	return nil
}

// groupName reports an identifier as a group's name.
func groupName(s string) bool {
	for i, r := range s {
		if r != '_' && r != '$' && !isLetter(r) && (i == 0 || !isDigit(r)) {
			return false
		}
	}
	return s != ""
}
