package declared

import (
	"bytes"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// scanner makes one linear pass over JSON text before anything decodes
// it: it checks that the text is one value nested at most maxDepth deep,
// so that the decoders after it (the library's, the member check's)
// recurse a bounded number of times. Its grammar is loose where a decoder
// after it checks (numbers), strict where the walks after it rely on it
// (strings, structure).
type scanner struct {
	b        []byte
	i        int
	maxDepth int
	tooDeep  bool
}

func (s *scanner) ws() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// end reports whether only space follows the value read.
func (s *scanner) end() bool {
	s.ws()
	return s.i == len(s.b)
}

func (s *scanner) value(depth int) bool {
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(depth)
	case c == '[':
		return s.array(depth)
	case c == '"':
		return s.str()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		for s.i < len(s.b) && (s.b[s.i] >= '0' && s.b[s.i] <= '9' || strings.IndexByte("-+.eE", s.b[s.i]) >= 0) {
			s.i++
		}
		return true
	}
	return false
}

func (s *scanner) str() bool {
	s.i++
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return true
		case c == '\\':
			s.i += 2
		case c < 0x20:
			return false
		default:
			s.i++
		}
	}
	return false
}

func (s *scanner) literal(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}

func (s *scanner) object(depth int) bool {
	if depth >= s.maxDepth {
		s.tooDeep = true
		return false
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' || !s.str() {
			return false
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		if !s.value(depth + 1) {
			return false
		}
		if done, ok := s.separator('}'); !ok || done {
			return ok
		}
	}
}

func (s *scanner) array(depth int) bool {
	if depth >= s.maxDepth {
		s.tooDeep = true
		return false
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		if !s.value(depth + 1) {
			return false
		}
		if done, ok := s.separator(']'); !ok || done {
			return ok
		}
	}
}

// separator reads what follows a member or an element: a comma, after
// which more follow, or end, which closes the object or array (done).
func (s *scanner) separator(end byte) (done, ok bool) {
	s.ws()
	if s.i >= len(s.b) {
		return false, false
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		return false, true
	case end:
		s.i++
		return true, true
	}
	return false, false
}

// flatReader reads the plain JSON of a flat call for the fast path: it
// reports false for anything it does not read exactly as encoding/json
// does (escapes, invalid UTF-8), which then goes to the library.
type flatReader struct {
	b []byte
	i int
}

func (d *flatReader) ws() {
	for d.i < len(d.b) && (d.b[d.i] == ' ' || d.b[d.i] == '\t' || d.b[d.i] == '\n' || d.b[d.i] == '\r') {
		d.i++
	}
}

func (d *flatReader) lit(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *flatReader) end() bool {
	d.ws()
	return d.i == len(d.b)
}

// plainString reads a string without escapes and with valid UTF-8.
func (d *flatReader) plainString() ([]byte, bool) {
	if !d.lit('"') {
		return nil, false
	}
	start, ascii := d.i, true
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			return s, ascii || utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		}
		d.i++
	}
	return nil, false
}

// number reads a JSON number, checking its grammar, and reports whether
// it has no fraction or exponent.
func (d *flatReader) number() (text []byte, integer, ok bool) {
	start := d.i
	d.lit('-')
	switch {
	case d.lit('0'):
	case d.i < len(d.b) && d.b[d.i] >= '1' && d.b[d.i] <= '9':
		d.digits()
	default:
		return nil, false, false
	}
	integer = true
	if d.lit('.') {
		integer = false
		if !d.digits() {
			return nil, false, false
		}
	}
	if d.lit('e') || d.lit('E') {
		integer = false
		if !d.lit('+') {
			d.lit('-')
		}
		if !d.digits() {
			return nil, false, false
		}
	}
	return d.b[start:d.i], integer, true
}

func (d *flatReader) digits() bool {
	start := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	return d.i > start
}

// word reads w, a literal such as true.
func (d *flatReader) word(w string) bool {
	if strings.HasPrefix(text(d.b[d.i:]), w) {
		d.i += len(w)
		return true
	}
	return false
}

// text is b as a string, without copying: for reading only.
func text(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
