package ecma

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// escape writes the escape whose "\" is at byte at, outside a class.
func (t *translator) escape(at int) error {
	if t.i >= len(t.src) {
		return errorf(at, `the pattern ends with a "\"`)
	}
	switch c := t.next(); c {
	case 'd', 'D', 'w', 'W': // ASCII in both
		t.write(`\`+string(c), true)
	case 'b', 'B':
		t.write(`\`+string(c), false)
	case 's', 'S', 'p', 'P':
		set, err := t.set(at, c)
		if err != nil {
			return err
		}
		t.write(bracket(set, false), true)
	case 'k', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return errorf(at, `the backreference "\%c" cannot be checked: Go's RE2 has no backreferences`, c)
	default:
		r, err := t.char(at, c, false)
		if err != nil {
			return err
		}
		t.write(spell(r), true)
	}
	return nil
}

// set reads the class escape \s, \S, \p{...} or \P{...} whose letter c
// was just read, as the inside of a Go character class ("" for none).
func (t *translator) set(at int, c rune) (string, error) {
	switch c {
	case 's':
		return whiteSpace, nil
	case 'S':
		return notWhiteSpace, nil
	}
	return t.property(at, c == 'P')
}

// char reads the escape of one character whose letter c was just read,
// in a class or not.
func (t *translator) char(at int, c rune, inClass bool) (rune, error) {
	switch {
	case c == 't':
		return '\t', nil
	case c == 'n':
		return '\n', nil
	case c == 'v':
		return '\v', nil
	case c == 'f':
		return '\f', nil
	case c == 'r':
		return '\r', nil
	case c == '0' && !isDigit(rune(t.peek())):
		return 0, nil
	case c == 'x':
		return t.hex(at, 2)
	case c == 'u':
		return t.unicode(at)
	case c == 'c':
		if l := rune(t.peek()); asciiLetter(l) {
			t.i++
			return l % 32, nil
		}
		return 0, errorf(at, `"\c" must be followed by a letter`)
	case inClass && c == 'b':
		return '\b', nil
	case asciiLetter(c) || isDigit(c):
		return 0, errorf(at, `the escape "\%c" is not ECMA-262 with the u flag (Go would read it otherwise)`, c)
	}
	return c, nil // an escaped syntax or punctuation character is itself
}

// hex reads n hex digits of a \x or \u escape.
func (t *translator) hex(at, n int) (rune, error) {
	if t.i+n > len(t.src) || !hexDigits(t.src[t.i:t.i+n]) {
		return 0, errorf(at, "an escape needs %d hex digits", n)
	}
	v, _ := strconv.ParseUint(t.src[t.i:t.i+n], 16, 32)
	t.i += n
	return rune(v), nil
}

// unicode reads a \uXXXX escape, two when they are a surrogate pair, or a
// \u{...} one.
func (t *translator) unicode(at int) (rune, error) {
	if t.peek() != '{' {
		r, err := t.hex(at, 4)
		if err == nil && utf16.IsSurrogate(r) && r < 0xDC00 && strings.HasPrefix(t.src[t.i:], `\u`) {
			save := t.i
			t.i += 2
			if lo, err := t.hex(at, 4); err == nil && lo >= 0xDC00 && lo <= 0xDFFF {
				return utf16.DecodeRune(r, lo), nil
			}
			t.i = save
		}
		return r, err
	}
	end := strings.IndexByte(t.src[t.i:], '}')
	if end < 2 || !hexDigits(t.src[t.i+1:t.i+end]) {
		return 0, errorf(at, `"\u{" needs hex digits and a "}"`)
	}
	v, err := strconv.ParseUint(t.src[t.i+1:t.i+end], 16, 32)
	if err != nil || v > unicode.MaxRune {
		return 0, errorf(at, `"\u{%s}" is past U+10FFFF`, t.src[t.i+1:t.i+end])
	}
	t.i += end + 1
	return rune(v), nil
}

func hexDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789abcdefABCDEF") == ""
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func asciiLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

func isLetter(r rune) bool { return unicode.IsLetter(r) }
