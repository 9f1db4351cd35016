package redact

import (
	"strings"
	"unsafe"
)

// Trigger search is the cost of redacting clean text, so it is kept small:
// the text is lower-cased once on the stack, and a bloom filter of its
// adjacent byte pairs rules out most triggers with a table lookup before
// any substring search runs.
const (
	lowerBufSize = 512  // text lower-cased on the stack; longer text allocates once
	bloomMaxText = 2048 // beyond this the filter would be mostly ones
	bloomBits    = 4096
)

// textScan answers "does the text contain this trigger" for the text it
// was reset with. The caller keeps the lower-cased text and passes it in:
// storing it in the struct would move the stack buffer to the heap.
type textScan struct {
	useBloom bool
	bloom    [bloomBits / 64]uint64
}

// reset prepares the scan for lower, the lower-cased text.
func (t *textScan) reset(lower string) {
	t.useBloom = len(lower) <= bloomMaxText
	if !t.useBloom {
		return
	}
	t.bloom = [bloomBits / 64]uint64{}
	for i := 0; i+1 < len(lower); i++ {
		h := pairHash(lower[i], lower[i+1])
		t.bloom[h>>6] |= 1 << (h & 63)
	}
}

func pairHash(a, b byte) uint { return (uint(a)<<5 ^ uint(b)) % bloomBits }

func (t *textScan) mayHave(p string) bool {
	if !t.useBloom {
		return true
	}
	for _, i := range [2]int{0, len(p) - 2} {
		h := pairHash(p[i], p[i+1])
		if t.bloom[h>>6]&(1<<(h&63)) == 0 {
			return false
		}
	}
	return true
}

// has reports whether lower contains one of triggers (lower-case); a
// trigger "^x" must start it.
func (t *textScan) has(lower string, triggers []string) bool {
	for _, tr := range triggers {
		if rest, ok := strings.CutPrefix(tr, "^"); ok && rest != "" {
			if strings.HasPrefix(lower, rest) {
				return true
			}
			continue
		}
		if len(tr) >= 2 && !t.mayHave(tr) {
			continue
		}
		if strings.Contains(lower, tr) {
			return true
		}
	}
	return false
}

// lowerASCII lower-cases the ASCII letters of s into dst (the triggers are
// ASCII) and returns a string view of it that lives as long as dst.
func lowerASCII(dst []byte, s string) string {
	dst = append(dst, s...)
	for i, c := range dst {
		if 'A' <= c && c <= 'Z' {
			dst[i] = c + 'a' - 'A'
		}
	}
	return unsafe.String(unsafe.SliceData(dst), len(dst))
}
