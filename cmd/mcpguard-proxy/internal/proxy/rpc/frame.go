package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf8"
)

// DefaultMaxMessage bounds one JSON-RPC message, either way, unless the
// proxy's WithMaxMessage says otherwise: large enough for a page of
// results or an image, small enough that a hostile peer cannot make the
// proxy buffer without limit.
const DefaultMaxMessage = 16 << 20

// PeekBytes is how much of an oversized message is kept to find its id.
const PeekBytes = 64 << 10

// LineReader reads newline-delimited messages (MCP's stdio framing), each
// bounded: a longer line is consumed and dropped, keeping only its start.
//
// It reads into one buffer and returns each line as a slice of it, where
// a bufio.Reader copied each line out of its own buffer and the line was
// trimmed with bytes.TrimRight: cold, as a call runs end to end, that was
// about 1.5 µs more a call (docs/proxy.md, "Latency end to end").
type LineReader struct {
	r     io.Reader
	max   int
	buf   []byte // buf[start:end] is read and not yet returned
	start int
	end   int
	scan  int    // buf[start:scan] holds no newline
	err   error  // the reader's error, returned once buf[start:end] is
	drop  bool   // the line being read is over the bound: the rest of it is dropped
	over  []byte // the start of that line, up to peekBytes
}

// lineBuffer is a LineReader's buffer at first; it grows, up to what the
// bound needs, for a longer line.
const lineBuffer = 64 << 10

// NewLineReader returns a LineReader of r whose lines are bounded by max
// bytes.
func NewLineReader(r io.Reader, max int) *LineReader {
	return &LineReader{r: r, max: max, buf: make([]byte, lineBuffer)}
}

// Next returns the next non-empty line without its end of line. The slice
// is valid until the following call. A line over the bound is returned as
// its first bytes with oversize set. err is io.EOF at the end of input.
func (l *LineReader) Next() (line []byte, oversize bool, err error) {
	for {
		line, oversize, err = l.Line()
		if !blank(line) || oversize || err != nil {
			if err != nil && !blank(line) && errors.Is(err, io.EOF) {
				return line, oversize, nil // a last line without a newline
			}
			return line, oversize, err
		}
	}
}

// blank reports whether line is empty or white space only, as
// bytes.TrimSpace reads white space. A message starts with '{', so its
// first byte answers: no ASCII byte above the space is white space.
func blank(line []byte) bool {
	if len(line) > 0 && line[0] > ' ' && line[0] < utf8.RuneSelf {
		return false
	}
	return len(bytes.TrimSpace(line)) == 0
}

// Line returns the next line, however short, without its newline and the
// carriage returns before it; a line over the bound as its first
// PeekBytes, with oversize set. At the end of input it returns what is
// left, with the reader's error.
func (l *LineReader) Line() ([]byte, bool, error) {
	for empty := 0; ; {
		if i := bytes.IndexByte(l.buf[l.scan:l.end], '\n'); i >= 0 {
			return l.cut(l.scan + i)
		}
		l.scan = l.end
		if l.err != nil {
			return l.rest()
		}
		if !l.drop && l.end-l.start > l.max+2 { // +2: the end of line
			l.drop, l.over = true, l.over[:0]
		}
		if l.drop {
			l.keep(l.buf[l.start:l.end])
			l.start, l.end, l.scan = 0, 0, 0
		}
		l.room()
		n, err := l.r.Read(l.buf[l.end:])
		l.end += n
		l.err = err
		if empty++; n > 0 || err != nil {
			empty = 0
		} else if empty == 100 { // as bufio.Reader gives up on a reader that returns nothing
			l.err = io.ErrNoProgress
		}
	}
}

// cut returns the line that ends with the newline at buf[nl].
func (l *LineReader) cut(nl int) ([]byte, bool, error) {
	line := l.buf[l.start:nl]
	l.start, l.scan = nl+1, nl+1
	return l.whole(line, len(line)+1, nil) // +1: the newline
}

// rest returns what is left at the end of input, with the reader's error.
func (l *LineReader) rest() ([]byte, bool, error) {
	line := l.buf[l.start:l.end]
	l.start, l.end, l.scan = 0, 0, 0
	return l.whole(line, len(line), l.err)
}

// whole returns a line read to its end, n bytes with its newline if it
// has one: its start if it is over the bound.
func (l *LineReader) whole(line []byte, n int, err error) ([]byte, bool, error) {
	switch {
	case l.drop:
		l.drop = false
		l.keep(line)
		return trimCR(l.over), true, err
	case n > l.max+2:
		return trimCR(line[:min(len(line), PeekBytes)]), true, err
	}
	return trimCR(line), false, err
}

// room makes room at the end of buf for a read: it moves the line being
// read to the front, or grows buf, up to what the bound needs.
func (l *LineReader) room() {
	switch {
	case l.start == l.end:
		l.start, l.end, l.scan = 0, 0, 0
	case l.end < len(l.buf):
	case l.start > 0:
		n := copy(l.buf, l.buf[l.start:l.end])
		l.scan -= l.start
		l.start, l.end = 0, n
	default: // one line fills buf and is within the bound: end <= max+2
		b := make([]byte, min(2*len(l.buf), l.max+3))
		l.end = copy(b, l.buf[:l.end])
		l.buf = b
	}
}

// keep adds b to the start kept of a line over the bound, up to PeekBytes.
func (l *LineReader) keep(b []byte) {
	l.over = append(l.over, b[:min(len(b), max(0, PeekBytes-len(l.over)))]...)
}

// trimCR drops the carriage returns at the end of a line.
func trimCR(line []byte) []byte {
	for len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	return line
}

// Peek reads the id and method of a message from its first bytes only, for
// a message too large to decode: members before the cut are found, the rest
// is not needed.
func Peek(prefix []byte) (id []byte, method string) {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, ""
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return id, method
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return id, method
		}
		switch k {
		case "id":
			id = raw
		case "method":
			_ = json.Unmarshal(raw, &method)
		}
		if id != nil && method != "" {
			break
		}
	}
	return id, method
}
