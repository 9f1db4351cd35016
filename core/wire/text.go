package wire

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// string reads the JSON string at c.i, its escapes resolved. It refuses
// invalid UTF-8, control characters, unknown escapes and lone
// surrogates.
func (c *canon) string() (string, bool) {
	c.i++ // "
	var b strings.Builder
	start := c.i
	for c.i < len(c.src) {
		ch := c.src[c.i]
		switch {
		case ch == '"':
			b.Write(c.src[start:c.i])
			c.i++
			return b.String(), true
		case ch < 0x20:
			return "", false
		case ch == '\\':
			b.Write(c.src[start:c.i])
			r, ok := c.escape()
			if !ok {
				return "", false
			}
			b.WriteRune(r)
			start = c.i
		case ch < utf8.RuneSelf:
			c.i++
		default:
			r, n := utf8.DecodeRune(c.src[c.i:])
			if r == utf8.RuneError && n <= 1 {
				return "", false
			}
			c.i += n
		}
	}
	return "", false
}

// escape reads the escape at c.i (a backslash) and returns its rune.
func (c *canon) escape() (rune, bool) {
	if c.i+1 >= len(c.src) {
		return 0, false
	}
	e := c.src[c.i+1]
	c.i += 2
	switch e {
	case '"', '\\', '/':
		return rune(e), true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'u':
		r, ok := c.hex4()
		if !ok {
			return 0, false
		}
		if !utf16.IsSurrogate(r) {
			return r, true
		}
		if r >= 0xDC00 || c.i+1 >= len(c.src) || c.src[c.i] != '\\' || c.src[c.i+1] != 'u' {
			return 0, false // a lone surrogate
		}
		c.i += 2
		lo, ok := c.hex4()
		if !ok {
			return 0, false
		}
		if d := utf16.DecodeRune(r, lo); d != utf8.RuneError {
			return d, true
		}
	}
	return 0, false
}

func (c *canon) hex4() (rune, bool) {
	if c.i+4 > len(c.src) {
		return 0, false
	}
	var r rune
	for _, h := range c.src[c.i : c.i+4] {
		r <<= 4
		switch {
		case '0' <= h && h <= '9':
			r |= rune(h - '0')
		case 'a' <= h && h <= 'f':
			r |= rune(h - 'a' + 10)
		case 'A' <= h && h <= 'F':
			r |= rune(h - 'A' + 10)
		default:
			return 0, false
		}
	}
	c.i += 4
	return r, true
}

// appendString writes s as RFC 8785 does: only the quotation mark, the
// reverse solidus and control characters escaped, the short escapes where
// JSON has one.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '"' || ch == '\\':
			dst = append(dst, '\\', ch)
		case ch == '\b':
			dst = append(dst, '\\', 'b')
		case ch == '\t':
			dst = append(dst, '\\', 't')
		case ch == '\n':
			dst = append(dst, '\\', 'n')
		case ch == '\f':
			dst = append(dst, '\\', 'f')
		case ch == '\r':
			dst = append(dst, '\\', 'r')
		case ch < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[ch>>4], hex[ch&0xF])
		default:
			dst = append(dst, ch)
		}
	}
	return append(dst, '"')
}
