package wire

import (
	"unicode"
	"unicode/utf8"
)

// AppendFold appends name to dst as encoding/json matches an object's
// member names to a struct's fields (its fold.go): ASCII letters in upper
// case, every other rune as the upper case of its lower case, which takes
// the Kelvin sign to K and the long s (ſ) to S. Two names fold alike
// exactly when encoding/json reads one as the other: the one case fold of
// every reader of untrusted JSON in mcpguard.
func AppendFold(dst, name []byte) []byte {
	for i := 0; i < len(name); {
		c := name[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(name[i:])
		dst = utf8.AppendRune(dst, unicode.ToUpper(unicode.ToLower(r)))
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
// names, without allocating while both are ASCII.
func FoldsAs(a, b []byte) bool {
	if len(a) == len(b) && asciiOnly(a) && asciiOnly(b) {
		for i := range a {
			x, y := a[i], b[i]
			if 'a' <= x && x <= 'z' {
				x -= 'a' - 'A'
			}
			if 'a' <= y && y <= 'z' {
				y -= 'a' - 'A'
			}
			if x != y {
				return false
			}
		}
		return true
	}
	if asciiOnly(a) && asciiOnly(b) {
		return false
	}
	var fa, fb [64]byte
	return string(AppendFold(fa[:0], a)) == string(AppendFold(fb[:0], b))
}

func asciiOnly(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
