package proxy

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// This file holds the forms of a JSON-RPC id: the key that compares two
// ids by value (idKey), an id put in place of another in a message
// (withID), and the ids the proxy mints for the requests it sends upstream
// (mintedIDs).

// idKey is the key of a request id: its value, not its spelling ("\u0061"
// and "a" are one id, 7 and "7" two), and false when the id is neither a
// string nor an integer written without fraction or exponent: JSON-RPC
// ids that every reader reads as the same value.
func idKey(id []byte) (string, bool) {
	var kb [64]byte
	k, ok := appendIDKey(kb[:0], id)
	return string(k), ok
}

// appendIDKey appends id's key (idKey) to buf, without allocating for
// the ids most clients write and every id the proxy mints: integers, and
// strings without escapes.
func appendIDKey(buf, id []byte) ([]byte, bool) {
	if len(id) > 0 && (id[0] <= ' ' || id[len(id)-1] <= ' ') {
		id = bytes.Trim(id, jsonSpace)
	}
	switch {
	case len(id) == 0:
		return buf, false
	case id[0] == '"' && len(id) >= 2 && id[len(id)-1] == '"' && plainString(id[1:len(id)-1]):
		return append(append(buf, 's'), id[1:len(id)-1]...), true // what every reader reads: the bytes themselves
	case id[0] == '"':
		var s string
		if json.Unmarshal(id, &s) != nil {
			return buf, false
		}
		return append(append(buf, 's'), s...), true
	case len(id) > 20 || !integer(id):
		return buf, false
	}
	return append(append(buf, 'n'), id...), true
}

// jsonSpace is the whitespace JSON allows between tokens.
const jsonSpace = " \t\r\n"

// integer reports whether b is an integer as JSON writes one, an optional
// minus and digits, without fraction or exponent.
func integer(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// plainString reports whether b, the inside of a JSON string, reads as
// itself: valid UTF-8 with no escape, quote or control character (the
// minted ids, and most ids a client writes).
func plainString(b []byte) bool {
	wide := false
	for _, c := range b {
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
		wide = wide || c >= utf8.RuneSelf
	}
	return !wide || utf8.Valid(b)
}

// withID returns msg, whose id is at m.idAt, with its id replaced by id.
func withID(msg []byte, m *message, id []byte) []byte {
	if len(m.ID) == 0 {
		return msg
	}
	out := make([]byte, 0, len(msg)-len(m.ID)+len(id))
	out = append(out, msg[:m.idAt]...)
	out = append(out, id...)
	return append(out, msg[m.idAt+len(m.ID):]...)
}

// mintedIDs are the ids the proxy gives the requests it sends upstream:
// a prefix no client writes by chance, and a counter.
type mintedIDs struct {
	prefix string
	n      atomic.Uint64
}

func newMintedIDs() *mintedIDs {
	return &mintedIDs{prefix: "mcpguard-" + strings.ToLower(rand.Text()[:10]) + "-"}
}

// next returns a new id: its JSON text and its key (idKey).
func (ids *mintedIDs) next() (raw []byte, key string) {
	raw, _ = ids.appendNext(make([]byte, 0, mintedLen))
	key, _ = idKey(raw)
	return raw, key
}

// appendNext returns a new id, its JSON text appended to buf (without
// allocating when buf has room: mintedLen), and its counter.
func (ids *mintedIDs) appendNext(buf []byte) (raw []byte, n uint64) {
	n = ids.n.Add(1)
	at := len(buf)
	raw = strconv.AppendUint(append(append(buf, '"'), ids.prefix...), n, 10)
	return append(raw, '"')[at:], n
}

// minted returns the counter of the id a server's answer carries, when
// it is an id these ids minted however it is spelled (its key is the
// minted id's), and false for any other id.
func (ids *mintedIDs) minted(id []byte) (uint64, bool) {
	p := len(ids.prefix)
	if len(id) > 2+p && id[0] == '"' && id[len(id)-1] == '"' && string(id[1:1+p]) == ids.prefix {
		if n, ok := counter(id[1+p : len(id)-1]); ok {
			return n, true // as the proxy wrote it
		}
	}
	var kb [64]byte
	k, ok := appendIDKey(kb[:0], id) // spelled otherwise
	if !ok || len(k) < 1+p || k[0] != 's' || string(k[1:1+p]) != ids.prefix {
		return 0, false
	}
	return counter(k[1+p:])
}

// counter reads a minted id's counter as strconv.AppendUint writes it:
// digits, without a leading zero, short of overflow.
func counter(digits []byte) (uint64, bool) {
	if len(digits) == 0 || len(digits) > 19 || digits[0] == '0' {
		return 0, false
	}
	var n uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// mintedLen is room for any minted id's text: the quotes, the prefix
// (9 + 10 + 1 bytes) and a uint64.
const mintedLen = 2 + 20 + 20
