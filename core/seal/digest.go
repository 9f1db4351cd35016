package seal

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxDepth bounds the nesting ArgumentsDigest canonicalizes; deeper
// arguments digest as their bytes.
const maxDepth = 128

// ArgumentsDigest is the SHA-256 of the canonical form of a call's
// arguments (a JSON value): objects with their members sorted by name, no
// insignificant space, strings by their decoded value, numbers as
// written. Absent arguments, null and {} digest alike. A client that
// re-encodes the same arguments on its retry, reordering members, spacing
// or escaping otherwise, therefore yields the same digest; one that
// changes a value does not.
//
// Arguments that readers may read differently digest as their bytes, so
// that no reordering of them keeps the digest: an object with two members
// whose names are equal, or equal but for case (encoding/json matches
// struct fields case-insensitively, and keeps the last of duplicates;
// other readers keep the first), text that is not JSON, invalid UTF-8,
// or nesting deeper than 128.
func ArgumentsDigest(raw []byte) [sha256.Size]byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	d := digesters.Get().(*digester)
	defer d.put()
	d.src, d.pos = raw, 0
	root := d.buffer(0)
	if d.value(root, 1) && d.skipSpace() == len(raw) {
		return sha256.Sum256(*root)
	}
	h := sha256.New()
	h.Write([]byte("raw:"))
	h.Write(raw)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// A digester writes the canonical encoding of a value into a buffer
// (hashing a buffer avoids an interface call, whose arguments escape, per
// token), each member's value into the buffer of its depth, replaced by
// its SHA-256 in its object's: every byte is encoded and hashed once.
type digester struct {
	bufs [][]byte // one per depth
	src  []byte
	pos  int
	tmp  []byte
	// decoded says the last string read was unescaped into tmp.
	decoded bool
}

// buffer returns the emptied buffer of depth (at most maxDepth+1: bufs
// never grows, so that the pointers handed out stay valid).
func (d *digester) buffer(depth int) *[]byte {
	d.bufs[depth] = d.bufs[depth][:0]
	return &d.bufs[depth]
}

func (d *digester) put() {
	d.src = nil
	for _, b := range d.bufs {
		if cap(b) > 64<<10 {
			return // not pooled: a large input's buffers
		}
	}
	digesters.Put(d)
}

var digesters = sync.Pool{New: func() any { return &digester{bufs: make([][]byte, maxDepth+2)} }}

func (d *digester) skipSpace() int {
	for d.pos < len(d.src) {
		switch d.src[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return d.pos
		}
	}
	return d.pos
}

// tag writes a type tag and a length.
func tag(h *[]byte, t byte, n int) {
	*h = binary.BigEndian.AppendUint64(append(*h, t), uint64(n))
}

// value hashes the value at d.pos, reporting whether it was canonical
// JSON as defined above.
func (d *digester) value(h *[]byte, depth int) bool {
	if depth > maxDepth || d.skipSpace() == len(d.src) {
		return false
	}
	switch c := d.src[d.pos]; {
	case c == '{':
		return d.object(h, depth)
	case c == '[':
		return d.array(h, depth)
	case c == '"':
		s, ok := d.str()
		if ok {
			tag(h, 's', len(s))
			*h = append(*h, s...)
		}
		return ok
	case c == 't':
		return d.literal(h, "true", 't')
	case c == 'f':
		return d.literal(h, "false", 'f')
	case c == 'n':
		return d.literal(h, "null", 'z')
	default:
		return d.number(h)
	}
}

func (d *digester) literal(h *[]byte, word string, t byte) bool {
	if !bytes.HasPrefix(d.src[d.pos:], []byte(word)) {
		return false
	}
	d.pos += len(word)
	tag(h, t, 0)
	return true
}

func (d *digester) number(h *[]byte) bool {
	start := d.pos
	for d.pos < len(d.src) && strings.IndexByte("0123456789+-.eE", d.src[d.pos]) >= 0 {
		d.pos++
	}
	lit := d.src[start:d.pos]
	if len(lit) == 0 || !json.Valid(lit) {
		return false
	}
	tag(h, 'n', len(lit))
	*h = append(*h, lit...)
	return true
}

// str reads the string at d.pos and returns its decoded bytes (valid
// until the next str), or false.
func (d *digester) str() ([]byte, bool) {
	start := d.pos
	d.pos++
	escaped := false
	d.decoded = false
	for d.pos < len(d.src) {
		switch c := d.src[d.pos]; {
		case c == '"':
			d.pos++
			raw := d.src[start:d.pos]
			if !escaped {
				body := raw[1 : len(raw)-1]
				return body, utf8.Valid(body)
			}
			var s string
			if json.Unmarshal(raw, &s) != nil || !utf8.ValidString(s) || strings.ContainsRune(s, utf8.RuneError) {
				return nil, false
			}
			d.tmp = append(d.tmp[:0], s...)
			d.decoded = true
			return d.tmp, true
		case c == '\\':
			escaped = true
			d.pos += 2
		case c < 0x20:
			return nil, false
		default:
			d.pos++
		}
	}
	return nil, false
}

type member struct {
	name  []byte            // in src, or a copy when escaped
	value [sha256.Size]byte // the digest of its value
}

func (d *digester) object(h *[]byte, depth int) bool {
	d.pos++
	var stack [16]member
	members := stack[:0]
	for first := true; ; first = false {
		if d.skipSpace() == len(d.src) {
			return false
		}
		if d.src[d.pos] == '}' && first {
			d.pos++
			break
		}
		if d.src[d.pos] != '"' {
			return false
		}
		name, ok := d.str()
		if !ok || d.skipSpace() == len(d.src) || d.src[d.pos] != ':' {
			return false
		}
		d.pos++
		m := member{name: name}
		if d.decoded {
			m.name = bytes.Clone(name) // d.tmp is reused
		}
		vh := d.buffer(depth + 1)
		if !d.value(vh, depth+1) {
			return false
		}
		m.value = sha256.Sum256(*vh)
		members = append(members, m)
		if d.skipSpace() == len(d.src) {
			return false
		}
		if d.src[d.pos] == '}' {
			d.pos++
			break
		}
		if d.src[d.pos] != ',' {
			return false
		}
		d.pos++
	}
	if dup(members) {
		return false
	}
	slices.SortFunc(members, func(a, b member) int { return bytes.Compare(a.name, b.name) })
	tag(h, 'o', len(members))
	for _, m := range members {
		tag(h, 'k', len(m.name))
		*h = append(*h, m.name...)
		*h = append(*h, m.value[:]...)
	}
	return true
}

// dup reports whether two members' names are equal but for case.
func dup(members []member) bool {
	if len(members) <= 32 {
		for i := range members {
			for j := i + 1; j < len(members); j++ {
				if bytes.EqualFold(members[i].name, members[j].name) {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]bool, len(members))
	for _, m := range members {
		k := strings.ToLower(strings.ToUpper(string(m.name)))
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	return false
}

func (d *digester) array(h *[]byte, depth int) bool {
	d.pos++
	// The count is not known before the elements: hash them, then an end.
	tag(h, 'a', 0)
	for first := true; ; first = false {
		if d.skipSpace() == len(d.src) {
			return false
		}
		if d.src[d.pos] == ']' && first {
			d.pos++
			break
		}
		if !d.value(h, depth+1) {
			return false
		}
		if d.skipSpace() == len(d.src) {
			return false
		}
		if d.src[d.pos] == ']' {
			d.pos++
			break
		}
		if d.src[d.pos] != ',' {
			return false
		}
		d.pos++
	}
	tag(h, 'e', 0)
	return true
}
