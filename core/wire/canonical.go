package wire

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects [Canonical]
// reads.
const MaxDepth = 128

// ErrNotCanonical is the error [Canonical] returns for a value that has
// no canonical form; see the package documentation.
var ErrNotCanonical = errors.New("wire: not a JSON value with a canonical form")

// Canonical appends the canonical form of the JSON value src to dst and
// returns the result, or dst unchanged and [ErrNotCanonical]. White space
// around the value is allowed; anything else after it is not.
func Canonical(dst, src []byte) ([]byte, error) {
	return canonical(canon{src: src, out: dst})
}

// CanonicalDocument is [Canonical] for a document whose readers match
// member names exactly, such as a tool definition and its JSON Schemas,
// where properties "id" and "ID" are two: it refuses only members whose
// names are equal, not those that merely fold alike.
func CanonicalDocument(dst, src []byte) ([]byte, error) {
	return canonical(canon{src: src, out: dst, exact: true})
}

func canonical(c canon) ([]byte, error) {
	dst := c.out
	c.space()
	if !c.value(0) {
		return dst, ErrNotCanonical
	}
	c.space()
	if c.i != len(c.src) {
		return dst, ErrNotCanonical
	}
	return c.out, nil
}

// Digest returns the SHA-256 digest of a call of tool with the JSON
// arguments args, as 32 bytes of a string: the tool's name preceded by
// its length, then the arguments as [ArgumentsDigest] writes them. ok is
// false when args has no canonical form.
func Digest(tool string, args []byte) (digest string, ok bool) {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(tool)))
	h.Write(n[:])
	h.Write([]byte(tool))
	ok = writeArguments(h, args)
	return string(h.Sum(nil)), ok
}

// ArgumentsDigest is the SHA-256 of a call's arguments in canonical form.
// Absent arguments (nil, empty or null) and an empty object digest alike.
// Arguments with no canonical form digest as their bytes, apart from
// every canonical form: respaced or reordered, they digest otherwise.
func ArgumentsDigest(args []byte) [sha256.Size]byte {
	h := sha256.New()
	writeArguments(h, args)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// writeArguments writes args to h as the digests name them, and reports
// whether they have a canonical form.
func writeArguments(h hash.Hash, args []byte) bool {
	var buf [256]byte
	c, err := Canonical(buf[:0], args)
	switch {
	case len(bytes.TrimSpace(args)) == 0 || (err == nil && string(c) == "null"):
		h.Write([]byte{'c', '{', '}'})
	case err != nil:
		h.Write([]byte{'r'}) // raw: apart from every canonical form
		h.Write(args)
		return false
	default:
		h.Write([]byte{'c'})
		h.Write(c)
	}
	return true
}

type canon struct {
	src   []byte
	i     int
	out   []byte
	exact bool // names need only differ exactly, not in their fold
}

func (c *canon) space() {
	for c.i < len(c.src) {
		switch c.src[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

func (c *canon) value(depth int) bool {
	if c.i >= len(c.src) {
		return false
	}
	switch b := c.src[c.i]; {
	case (b == '{' || b == '[') && depth >= MaxDepth:
		return false
	case b == '{':
		return c.object(depth + 1)
	case b == '[':
		return c.array(depth + 1)
	case b == '"':
		s, ok := c.string()
		if ok {
			c.out = appendString(c.out, s)
		}
		return ok
	case b == '-' || ('0' <= b && b <= '9'):
		return c.number()
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(c.src[c.i:], []byte(lit)) {
			c.i += len(lit)
			c.out = append(c.out, lit...)
			return true
		}
	}
	return false
}

func (c *canon) array(depth int) bool {
	c.i++ // [
	c.out = append(c.out, '[')
	c.space()
	if c.i < len(c.src) && c.src[c.i] == ']' {
		c.i++
		c.out = append(c.out, ']')
		return true
	}
	for {
		c.space()
		if !c.value(depth) {
			return false
		}
		c.space()
		if c.i >= len(c.src) {
			return false
		}
		switch c.src[c.i] {
		case ',':
			c.i++
			c.out = append(c.out, ',')
		case ']':
			c.i++
			c.out = append(c.out, ']')
			return true
		default:
			return false
		}
	}
}

// member is one object member, its value already in canonical form.
type member struct {
	name  string
	value []byte
}

func (c *canon) object(depth int) bool {
	c.i++ // {
	c.space()
	if c.i < len(c.src) && c.src[c.i] == '}' {
		c.i++
		c.out = append(c.out, '{', '}')
		return true
	}
	var members []member
	outer := c.out
	for {
		c.space()
		if c.i >= len(c.src) || c.src[c.i] != '"' {
			return false
		}
		name, ok := c.string()
		if !ok {
			return false
		}
		c.space()
		if c.i >= len(c.src) || c.src[c.i] != ':' {
			return false
		}
		c.i++
		c.space()
		c.out = nil
		if !c.value(depth) {
			return false
		}
		members = append(members, member{name, c.out})
		c.space()
		if c.i >= len(c.src) {
			return false
		}
		if c.src[c.i] == '}' {
			c.i++
			break
		}
		if c.src[c.i] != ',' {
			return false
		}
		c.i++
	}
	if !distinct(members, c.exact) {
		return false // readers would disagree on which member is meant
	}
	slices.SortFunc(members, func(a, b member) int { return compareUTF16(a.name, b.name) })
	c.out = append(outer, '{')
	for k, m := range members {
		if k > 0 {
			c.out = append(c.out, ',')
		}
		c.out = appendString(c.out, m.name)
		c.out = append(c.out, ':')
		c.out = append(c.out, m.value...)
	}
	c.out = append(c.out, '}')
	return true
}

// distinct reports whether no two members' names fold alike (encoding/json
// matches a member to a field whatever its case, and keeps the last of
// two; other readers keep the first, or match exactly).
// With exact, names are compared as they are.
func distinct(members []member, exact bool) bool {
	if len(members) < 2 {
		return true
	}
	names := func(yield func(string) bool) {
		for _, m := range members {
			if !yield(m.name) {
				return
			}
		}
	}
	if exact {
		return distinctBy(names, func(name string) string { return name })
	}
	return DistinctFolds(names)
}

// compareUTF16 orders names by their UTF-16 code units, as RFC 8785 says.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return slices.Compare(utf16.Encode([]rune{ra}), utf16.Encode([]rune{rb}))
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) - len(b)
}
