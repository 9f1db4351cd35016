package rpc

import (
	"bytes"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/core/wire"
)

// This file is the quick reader: one pass over the bytes, with no decoder
// state to set up, for the messages clients and servers usually write.
// It never refuses a message; it reads one or declines. It reads a
// message only when the message is valid JSON that every reader reads
// alike, in a form it knows: names in ASCII, without escapes, at most
// quickMaxNames to an object and quickMaxDepth deep, and, from a client,
// string values without \u escapes. Anything else it declines, and read
// (read.go, on jsontext) reads it and decides, as it does every message
// the quick reader declines. So the quick reader adds no judgement of its
// own: FuzzQuickReadsAsRead holds it to read, on every input, to reading
// what read reads, or declining.
//
// End to end, read cost most of what the proxy adds to a call over a
// relay: the decoder's set-up and its walk token by token, run after the
// client and the server have evicted the proxy from the caches
// (docs/proxy.md, "Latency end to end").

const (
	// quickMaxNames bounds the names of an object the quick reader
	// compares pairwise; an object with more is declined.
	quickMaxNames = 16
	// quickMaxDepth bounds how deep the quick reader descends.
	quickMaxDepth = 32
	// quickMaxOpen bounds the names of the objects being read, from the
	// message down to the innermost.
	quickMaxOpen = 32
)

// nameAt is where a name is in the message.
type nameAt struct{ start, end int32 }

// quick is the state of one quick read.
type quick struct {
	b      []byte
	i      int
	strict bool // a client's message: names compared in any case, UTF-8 checked
	// dirty: since it was last cleared, the reader met whitespace between
	// tokens or an escape in a string, which jsontext's formatting would
	// remove or shorten.
	dirty bool
	names [quickMaxOpen]nameAt // of the objects being read, innermost last
	open  int                  // how many of names are in use
}

// QuickCall is what the quick reader read of a tools/call's params.
type QuickCall struct {
	Tool  []byte // its name, which needs no unescaping
	Args  Span
	Plain bool // params are as jsontext formats them: ownCall need not
}

// quickReadInto reads b, one message, into m, which it sets quick (and
// m.call, for a client's tools/call): false when it declines to, m then
// zero. strict reads a client's message as ReadClient does; else as parse
// does. It fills the caller's message rather than returning one: a copy
// of a message is more code run and more stack touched, cold.
func quickReadInto(b []byte, strict bool, m *Message) bool {
	if len(b) > 1<<31-1 {
		return false // nameAt's offsets
	}
	q := quick{b: b, strict: strict}
	spelled := false
	if !q.top(func(name []byte) bool { return q.head(name, m, &m.Call, &spelled) }) ||
		(strict && m.Method == "tools/call" && spelled) {
		*m = Message{}
		return false
	}
	if !strict || m.Method != "tools/call" {
		m.Call = QuickCall{}
	}
	m.Quick = true
	return true
}

// head reads the value of the message's member name into m (and a
// client's params into qc, noting in spelled a name of them that folds to
// one of callNames without being it).
func (q *quick) head(name []byte, m *Message, qc *QuickCall, spelled *bool) bool {
	at := q.i
	switch string(name) {
	case "id":
		m.ID, m.IDAt = q.span(1), at
		return m.ID != nil
	case "method":
		s, ok := q.plainText()
		m.Method = method(s)
		return ok
	case "params":
		q.dirty = false
		if q.strict && q.i < len(q.b) && q.b[q.i] == '{' {
			if !q.members(func(name []byte) bool { return q.param(name, qc, spelled) }) {
				return false
			}
			m.Params = Span(q.b[at:q.i])
		} else {
			m.Params = q.span(1)
		}
		qc.Plain = !q.dirty
		return m.Params != nil
	case "result":
		m.Result = q.span(1)
		return m.Result != nil
	case "error":
		m.Error = q.span(1)
		return m.Error != nil
	}
	return !(q.strict && spelledOtherwise(name, headNames)) && q.value(1)
}

// param reads the value of a client's params member name, noting a
// tools/call's name and arguments. A requestState is declined: read opens
// it; so are inputResponses, which newCall notes (a call carrying them is
// never shed).
func (q *quick) param(name []byte, qc *QuickCall, spelled *bool) bool {
	switch string(name) {
	case "name":
		s, ok := q.plainText()
		qc.Tool = s
		return ok
	case "arguments":
		qc.Args = q.span(2)
		return qc.Args != nil
	case "requestState", "inputResponses":
		return false
	}
	if spelledOtherwise(name, callNames) {
		*spelled = true
	}
	return q.value(2)
}

// span reads a value at depth, returning its bytes; nil when declined.
func (q *quick) span(depth int) Span {
	at := q.i
	if !q.value(depth) {
		return nil
	}
	return Span(q.b[at:q.i])
}

// top reads the whole of q.b, one object, calling member for each of its
// members, as members does.
func (q *quick) top(member func(name []byte) bool) bool {
	q.ws()
	if q.i >= len(q.b) || q.b[q.i] != '{' || !q.members(member) {
		return false
	}
	q.ws()
	return q.i == len(q.b)
}

// members reads an object, from its '{' to its '}': each name (see name),
// then its value, which value reads, returning false to decline.
func (q *quick) members(value func(name []byte) bool) bool {
	q.i++ // '{'
	base := q.open
	defer func() { q.open = base }()
	for first := true; ; first = false {
		q.ws()
		if first && q.next('}') {
			return true
		}
		if !first && !q.member() {
			return false
		}
		name, ok := q.name(base)
		if !ok {
			return false
		}
		q.ws()
		if !value(name) {
			return false
		}
		q.ws()
		if q.next('}') {
			return true
		}
	}
}

// FalseMember reports whether obj, a JSON object, has the member name, as
// written, holding false, and the quick reader reads it.
func FalseMember(obj []byte, name string) bool {
	q := quick{b: obj}
	seen := false
	return q.top(func(n []byte) bool {
		if string(n) != name {
			return q.value(1)
		}
		seen = true
		return q.literal("false")
	}) && seen
}

// member reads the comma before an object's next member, or declines.
func (q *quick) member() bool { return q.next(',') && q.wsThen() }

func (q *quick) wsThen() bool { q.ws(); return true }

// next consumes c if it comes next.
func (q *quick) next(c byte) bool {
	if q.i < len(q.b) && q.b[q.i] == c {
		q.i++
		return true
	}
	return false
}

// ws skips whitespace between tokens, noting it.
func (q *quick) ws() {
	for q.i < len(q.b) {
		switch q.b[q.i] {
		case ' ', '\t', '\n', '\r':
			q.i++
			q.dirty = true
		default:
			return
		}
	}
}

// name reads an object's next name and its colon: ASCII without escapes,
// or declined; declined too when the object, whose names start at
// q.names[base], has a name before it that is equal or (for a client)
// differs only in case.
func (q *quick) name(base int) ([]byte, bool) {
	if q.open-base >= quickMaxNames || q.open == quickMaxOpen || !q.next('"') {
		return nil, false
	}
	start := q.i
	for q.i < len(q.b) {
		c := q.b[q.i]
		if c == '"' {
			break
		}
		if c < 0x20 || c == '\\' || c >= utf8.RuneSelf {
			return nil, false
		}
		q.i++
	}
	if q.i == len(q.b) {
		return nil, false
	}
	name := q.b[start:q.i]
	q.i++
	for _, at := range q.names[base:q.open] {
		o := q.b[at.start:at.end]
		if len(o) == len(name) && (bytes.Equal(o, name) || (q.strict && wire.FoldsAs(o, name))) {
			return nil, false
		}
	}
	q.names[q.open] = nameAt{int32(start), int32(start + len(name))}
	q.open++
	q.ws()
	if !q.next(':') {
		return nil, false
	}
	return name, true
}

// plainText reads a string value that reads as itself (plainString:
// no escape, valid UTF-8), returning its inside.
func (q *quick) plainText() ([]byte, bool) {
	if !q.next('"') {
		return nil, false
	}
	end := bytes.IndexByte(q.b[q.i:], '"')
	if end < 0 {
		return nil, false
	}
	s := q.b[q.i : q.i+end]
	q.i += end + 1
	return s, plainString(s) // an escape before the first quote: not plain, declined
}

// value reads any JSON value at depth (the top-level object is 0).
func (q *quick) value(depth int) bool {
	if q.i >= len(q.b) || depth >= quickMaxDepth {
		return false
	}
	switch c := q.b[q.i]; {
	case c == '{':
		return q.object(depth)
	case c == '[':
		return q.array(depth)
	case c == '"':
		return q.string()
	case c == 't':
		return q.literal("true")
	case c == 'f':
		return q.literal("false")
	case c == 'n':
		return q.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return q.number()
	}
	return false
}

func (q *quick) object(depth int) bool {
	return q.members(func([]byte) bool { return q.value(depth + 1) })
}

func (q *quick) array(depth int) bool {
	q.i++ // '['
	for first := true; ; first = false {
		q.ws()
		if first && q.next(']') {
			return true
		}
		if !first && !(q.next(',') && q.wsThen()) {
			return false
		}
		if !q.value(depth + 1) {
			return false
		}
		q.ws()
		if q.next(']') {
			return true
		}
	}
}

// string reads a string value. A client's must be valid UTF-8 without
// \u escapes (declined: read checks their surrogates); a server's may be
// any bytes but control characters, as parse reads them, with \u escapes
// outside the surrogates.
func (q *quick) string() bool {
	q.i++ // '"'
	for q.i < len(q.b) {
		c := q.b[q.i]
		switch {
		case c == '"':
			q.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if !q.escape() {
				return false
			}
		case c >= utf8.RuneSelf && q.strict:
			r, n := utf8.DecodeRune(q.b[q.i:])
			if r == utf8.RuneError && n == 1 {
				return false
			}
			q.i += n
		default:
			q.i++
		}
	}
	return false
}

// escape reads one escape sequence in a string.
func (q *quick) escape() bool {
	q.dirty = true
	if q.i+1 >= len(q.b) {
		return false
	}
	switch q.b[q.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		q.i += 2
		return true
	case 'u':
		if q.strict || q.i+6 > len(q.b) {
			return false
		}
		r := rune(0)
		for _, h := range q.b[q.i+2 : q.i+6] {
			switch {
			case '0' <= h && h <= '9':
				r = r<<4 | rune(h-'0')
			case 'a' <= h && h <= 'f':
				r = r<<4 | rune(h-'a'+10)
			case 'A' <= h && h <= 'F':
				r = r<<4 | rune(h-'A'+10)
			default:
				return false
			}
		}
		if 0xD800 <= r && r <= 0xDFFF {
			return false // a surrogate: read decides
		}
		q.i += 6
		return true
	}
	return false
}

func (q *quick) literal(lit string) bool {
	if len(q.b)-q.i < len(lit) || string(q.b[q.i:q.i+len(lit)]) != lit {
		return false
	}
	q.i += len(lit)
	return true
}

// number reads a number as JSON writes one: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?
func (q *quick) number() bool {
	q.next('-')
	switch {
	case q.next('0'):
	case q.i < len(q.b) && '1' <= q.b[q.i] && q.b[q.i] <= '9':
		q.digits()
	default:
		return false
	}
	if q.next('.') && !q.digits() {
		return false
	}
	if q.next('e') || q.next('E') {
		if !q.next('+') {
			q.next('-')
		}
		if !q.digits() {
			return false
		}
	}
	return true
}

// digits reads one digit or more.
func (q *quick) digits() bool {
	start := q.i
	for q.i < len(q.b) && '0' <= q.b[q.i] && q.b[q.i] <= '9' {
		q.i++
	}
	return q.i > start
}
