package rpc

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
// ids by value (IDKey), an id put in place of another in a message
// (WithID), and the ids the proxy mints for the requests it sends upstream
// (MintedIDs).

// IDKey is the key of a request id: its value, not its spelling ("\u0061"
// and "a" are one id, 7 and "7" two), and false when the id is neither a
// string nor an integer written without fraction or exponent: JSON-RPC
// ids that every reader reads as the same value.
func IDKey(id []byte) (string, bool) {
	var kb [64]byte
	k, ok := AppendIDKey(kb[:0], id)
	return string(k), ok
}

// AppendIDKey appends id's key (IDKey) to buf, without allocating for
// the ids most clients write and every id the proxy mints: integers, and
// strings without escapes.
func AppendIDKey(buf, id []byte) ([]byte, bool) {
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

// WithID returns msg, whose id is at m.idAt, with its id replaced by id.
func WithID(msg []byte, m *Message, id []byte) []byte {
	if len(m.ID) == 0 {
		return msg
	}
	out := make([]byte, 0, len(msg)-len(m.ID)+len(id))
	out = append(out, msg[:m.IDAt]...)
	out = append(out, id...)
	return append(out, msg[m.IDAt+len(m.ID):]...)
}

// MintedIDs are the ids the proxy gives the requests it sends upstream:
// a prefix no client writes by chance, and a counter.
type MintedIDs struct {
	Prefix string
	N      atomic.Uint64
}

// NewMintedIDs returns the ids of one proxy: a prefix of its own, drawn
// at random, and a counter.
func NewMintedIDs() *MintedIDs {
	return &MintedIDs{Prefix: "mcpguard-" + strings.ToLower(rand.Text()[:10]) + "-"}
}

// Next returns a new id: its JSON text and its key (IDKey).
func (ids *MintedIDs) Next() (raw []byte, key string) {
	raw, _ = ids.AppendNext(make([]byte, 0, MintedLen))
	key, _ = IDKey(raw)
	return raw, key
}

// AppendNext returns a new id, its JSON text appended to buf (without
// allocating when buf has room: MintedLen), and its counter.
func (ids *MintedIDs) AppendNext(buf []byte) (raw []byte, n uint64) {
	n = ids.N.Add(1)
	at := len(buf)
	raw = strconv.AppendUint(append(append(buf, '"'), ids.Prefix...), n, 10)
	return append(raw, '"')[at:], n
}

// Minted returns the counter of the id a server's answer carries, when
// it is an id these ids minted however it is spelled (its key is the
// minted id's), and false for any other id.
func (ids *MintedIDs) Minted(id []byte) (uint64, bool) {
	p := len(ids.Prefix)
	if len(id) > 2+p && id[0] == '"' && id[len(id)-1] == '"' && string(id[1:1+p]) == ids.Prefix {
		if n, ok := counter(id[1+p : len(id)-1]); ok {
			return n, true // as the proxy wrote it
		}
	}
	var kb [64]byte
	k, ok := AppendIDKey(kb[:0], id) // spelled otherwise
	if !ok || len(k) < 1+p || k[0] != 's' || string(k[1:1+p]) != ids.Prefix {
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

// MintedLen is room for any minted id's text: the quotes, the prefix
// (9 + 10 + 1 bytes) and a uint64.
const MintedLen = 2 + 20 + 20
