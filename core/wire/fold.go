package wire

import (
	"iter"
	"unicode"
	"unicode/utf8"
)

// AppendFold appends name to dst as encoding/json folds an object's
// member names to match them to a struct's fields (its fold.go): ASCII
// letters in upper case, every other rune as the least rune unicode's
// simple folding links it with, which takes the Kelvin sign to K and the
// long s (ſ) to S, and leaves the dotted and dotless i (İ, ı) apart from
// I. Two names fold alike exactly when encoding/json reads one as the
// other (bytes.EqualFold): the one case fold of every reader of
// untrusted JSON in mcpguard.
func AppendFold(dst, name []byte) []byte {
	for i := 0; i < len(name); {
		if c := name[i]; c < utf8.RuneSelf {
			dst = append(dst, foldASCII(c))
			i++
			continue
		}
		r, n := utf8.DecodeRune(name[i:])
		dst = utf8.AppendRune(dst, foldRune(r))
		i += n
	}
	return dst
}

// Fold is [AppendFold] of a string. It does not allocate for a name that
// is already folded ASCII.
func Fold(name string) string {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= utf8.RuneSelf || ('a' <= c && c <= 'z') {
			return string(AppendFold(make([]byte, 0, len(name)), []byte(name)))
		}
	}
	return name
}

// FoldsAs reports whether a and b are one name as encoding/json matches
// names, without allocating.
func FoldsAs(a, b []byte) bool {
	n, ok := foldPrefix(a, b)
	return ok && n == len(a)
}

// HasPrefixFold reports whether b begins with word as encoding/json
// matches names: with runes that fold, one for one, as word's do. It
// does not allocate.
func HasPrefixFold(b []byte, word string) bool {
	_, ok := foldPrefix(b, []byte(word))
	return ok
}

// ContainsFold reports whether b holds word anywhere as encoding/json
// matches names ([HasPrefixFold]): in any case, and with the runes
// beyond ASCII that fold to its letters. Scanning a document's raw text
// for a name, with no escape in it, it finds every member encoding/json
// would read as word. It does not allocate.
func ContainsFold(b []byte, word string) bool {
	for i := range b {
		if HasPrefixFold(b[i:], word) {
			return true
		}
	}
	return false
}

// DistinctFolds reports whether no two of names fold alike: whether
// encoding/json reads each as a member of its own.
func DistinctFolds(names iter.Seq[string]) bool { return distinctBy(names, Fold) }

// distinctBy reports whether no two of names have the same key.
func distinctBy(names iter.Seq[string], key func(string) string) bool {
	seen := map[string]struct{}{}
	for n := range names {
		k := key(n)
		if _, dup := seen[k]; dup {
			return false
		}
		seen[k] = struct{}{}
	}
	return true
}

// foldPrefix reports whether b begins with runes that fold as word's, and
// how many bytes of b they take.
func foldPrefix(b, word []byte) (int, bool) {
	i, j := 0, 0
	for j < len(word) {
		if i >= len(b) {
			return 0, false
		}
		x, y := b[i], word[j]
		if x < utf8.RuneSelf && y < utf8.RuneSelf {
			if foldASCII(x) != foldASCII(y) {
				return 0, false
			}
			i, j = i+1, j+1
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		s, m := utf8.DecodeRune(word[j:])
		if foldRune(r) != foldRune(s) {
			return 0, false
		}
		i, j = i+n, j+m
	}
	return i, true
}

func foldASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		c -= 'a' - 'A'
	}
	return c
}

// foldRune is r as encoding/json folds it: the least rune of its simple
// folding orbit, an ASCII letter in upper case.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		return rune(foldASCII(byte(r)))
	}
	for {
		o := unicode.SimpleFold(r)
		if o <= r {
			return o
		}
		r = o
	}
}
