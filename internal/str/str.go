package str

import (
	"strings"
	"unicode/utf8"
)

// Prefix returns the longest prefix of s of at most n bytes that does not
// end inside a UTF-8 sequence: s itself when it is n bytes or shorter, ""
// when n <= 0. Bytes that are not valid UTF-8 count as one character
// each, so they may be cut after, never a valid sequence in the middle.
func Prefix(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return ""
	}
	// The sequence that s[n] would continue starts at most UTFMax-1 bytes
	// before it; cut before that start when the sequence runs past n.
	for i := n - 1; i >= 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if _, size := utf8.DecodeRuneInString(s[i:]); i+size > n {
				return s[:i]
			}
			break
		}
	}
	return s[:n]
}

// Clip returns s when it is at most n bytes long, and otherwise its
// [Prefix] followed by mark ("…", " …(truncated)"), the two together at
// most n bytes: the bound is what a reader receives, mark included. When
// n cannot hold the mark, the cut is not marked.
func Clip(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	if n < len(mark) {
		return Prefix(s, n)
	}
	return Prefix(s, n-len(mark)) + mark
}

// ValidUTF8 returns s with each byte that is not part of a valid UTF-8
// sequence replaced by U+FFFD, as encoding/json writes it: a bound
// measured on the result is the size a client receives. It returns s
// itself, without allocating, when s is valid.
func ValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
