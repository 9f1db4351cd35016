package rpc

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// bufioLines is the LineReader as it was, on bufio.Reader: what the
// LineReader must still return, line for line, for lines shorter than
// PeekBytes (for a longer line over the bound, bufioLines kept whatever it
// had read before the bound was passed, up to the whole bound).
type bufioLines struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func (l *bufioLines) Next() ([]byte, bool, error) {
	for {
		line, oversize, err := l.Line()
		if len(bytes.TrimSpace(line)) > 0 || oversize || err != nil {
			if err != nil && len(bytes.TrimSpace(line)) > 0 && errors.Is(err, io.EOF) {
				return line, oversize, nil
			}
			return line, oversize, err
		}
	}
}

func (l *bufioLines) Line() ([]byte, bool, error) {
	l.buf = l.buf[:0]
	oversize := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !oversize {
			if len(l.buf)+len(chunk) > l.max+2 {
				oversize = true
				keep := min(len(chunk), max(0, PeekBytes-len(l.buf)))
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

// chunks reads b in pieces whose sizes come from seed, ending with err.
type chunks struct {
	b   []byte
	rnd *rand.Rand
	err error
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, c.err
	}
	n := min(len(p), len(c.b), 1+c.rnd.IntN(16))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

// FuzzLineReader: for any input, read in any pieces, under any bound, the
// LineReader returns the lines bufio returned, with the same oversize
// flags and errors, by next (stdio) and by line (SSE).
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{
		"{\"a\":1}\n{\"b\":2}\n",
		"\n\n  \r\n{\"a\":1}\r\n",
		"{\"a\":1}\r\r\n\xc2\xa0\n{\"tail\":true}",
		"data: x\n\ndata: y\r\n\r\n",
		strings.Repeat("x", 300) + "\n{\"id\":1}\n",
		"\r\n\r",
	} {
		f.Add([]byte(s), uint16(40), uint64(1), false)
		f.Add([]byte(s), uint16(0), uint64(7), true)
	}
	f.Fuzz(func(t *testing.T, in []byte, bound uint16, seed uint64, byLine bool) {
		max := int(bound % 512)
		for _, end := range []error{io.EOF, io.ErrUnexpectedEOF} {
			want := &bufioLines{r: bufio.NewReaderSize(&chunks{b: in, rnd: rand.New(rand.NewPCG(seed, 1)), err: end}, 64<<10), max: max}
			got := NewLineReader(&chunks{b: in, rnd: rand.New(rand.NewPCG(seed, 2)), err: end}, max)
			for i := 0; ; i++ {
				read := func(l interface {
					Line() ([]byte, bool, error)
					Next() ([]byte, bool, error)
				}) ([]byte, bool, error) {
					if byLine {
						return l.Line()
					}
					return l.Next()
				}
				wl, wo, we := read(want)
				gl, gotOver, ge := read(got)
				if !bytes.Equal(wl, gl) || wo != gotOver || !errors.Is(ge, we) || !errors.Is(we, ge) {
					t.Fatalf("line %d of %q (max %d, byLine %v):\nbufio: %q %v %v\nnow:   %q %v %v", i, in, max, byLine, wl, wo, we, gl, gotOver, ge)
				}
				if we != nil {
					break
				}
			}
		}
	})
}

// TestLineReaderLongLines: a line longer than the first buffer and within
// the bound is returned whole; one over the bound as its first PeekBytes,
// and the buffer never grows past the bound.
func TestLineReaderLongLines(t *testing.T) {
	const bound = 200 << 10
	long := strings.Repeat("a", 150<<10)
	over := strings.Repeat("b", 300<<10)
	in := long + "\r\n" + over + "\n" + `{"id":1}` + "\n" + over
	l := NewLineReader(strings.NewReader(in), bound)
	for i, want := range []struct {
		line     string
		oversize bool
		err      error
	}{
		{long, false, nil},
		{over[:PeekBytes], true, nil},
		{`{"id":1}`, false, nil},
		{over[:PeekBytes], true, nil}, // the last line, without a newline
		{"", false, io.EOF},
	} {
		line, oversize, err := l.Next()
		if string(line) != want.line || oversize != want.oversize || err != want.err {
			t.Fatalf("line %d: %d bytes, oversize %v, %v; want %d bytes, %v, %v", i, len(line), oversize, err, len(want.line), want.oversize, want.err)
		}
		if len(l.buf) > bound+3 {
			t.Fatalf("line %d: the buffer grew to %d bytes, past the bound %d", i, len(l.buf), bound)
		}
	}
}
