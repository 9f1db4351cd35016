package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// DefaultMaxMessage bounds one JSON-RPC message, either way, unless
// [WithMaxMessage] says otherwise: large enough for a page of results or an
// image, small enough that a hostile peer cannot make the proxy buffer
// without limit.
const DefaultMaxMessage = 16 << 20

// peekBytes is how much of an oversized message is kept to find its id.
const peekBytes = 64 << 10

// lineReader reads newline-delimited messages (MCP's stdio framing), each
// bounded: a longer line is consumed and dropped, keeping only its start.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next non-empty line without its end of line. The slice
// is valid until the following call. A line over the bound is returned as
// its first bytes with oversize set. err is io.EOF at the end of input.
func (l *lineReader) next() (line []byte, oversize bool, err error) {
	for {
		line, oversize, err = l.line()
		if len(bytes.TrimSpace(line)) > 0 || oversize || err != nil {
			if err != nil && len(bytes.TrimSpace(line)) > 0 && errors.Is(err, io.EOF) {
				return line, oversize, nil // a last line without a newline
			}
			return line, oversize, err
		}
	}
}

func (l *lineReader) line() ([]byte, bool, error) {
	l.buf = l.buf[:0]
	oversize := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !oversize {
			if len(l.buf)+len(chunk) > l.max+2 { // +2: the end of line
				oversize = true
				keep := min(len(chunk), max(0, peekBytes-len(l.buf)))
				l.buf = append(l.buf, chunk[:keep]...)
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(l.buf, "\r\n"), oversize, err
	}
}

// peek reads the id and method of a message from its first bytes only, for
// a message too large to decode: members before the cut are found, the rest
// is not needed.
func peek(prefix []byte) (id []byte, method string) {
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
