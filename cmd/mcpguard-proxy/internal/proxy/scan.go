package proxy

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// This file reads the top level of a JSON object without encoding/json's
// decoder, which allocates its scanner's state on every call: routing a
// pass-through message must cost next to nothing. Every input was checked
// with json.Valid first (whose scanner is pooled), so the scanner below
// only has to find where values end.

// members iterates over the members of a valid JSON object.
type members struct {
	b []byte
	i int
}

// newMembers returns an iterator over b's members, and false when b is not
// an object.
func newMembers(b []byte) (members, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return members{}, false
	}
	return members{b: b, i: i + 1}, true
}

// next returns the next member's key (its raw text between the quotes)
// and value (its raw JSON text), and false after the last.
func (m *members) next() (key, val []byte, ok bool) {
	b := m.b
	i := skipSpace(b, m.i)
	if i < len(b) && b[i] == ',' {
		i = skipSpace(b, i+1)
	}
	if i >= len(b) || b[i] != '"' {
		return nil, nil, false
	}
	end := skipString(b, i)
	key = b[i+1 : end-1]
	i = skipSpace(b, end)
	if i >= len(b) || b[i] != ':' {
		return nil, nil, false
	}
	i = skipSpace(b, i+1)
	end = skipValue(b, i)
	val = b[i:end]
	m.i = end
	return key, val, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at b[i].
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// skipValue returns the index after the value that starts at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}

// keyIs reports whether a raw key is name; a key written with escapes is
// decoded first.
func keyIs(key []byte, name string) bool {
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key) == name
	}
	var k string
	q := make([]byte, 0, len(key)+2)
	q = append(append(append(q, '"'), key...), '"')
	return json.Unmarshal(q, &k) == nil && k == name
}

// methods are the method names the proxy returns without allocating.
var methods = []string{
	"initialize", "ping", "tools/call", "tools/list", "resources/list", "resources/read",
	"resources/templates/list", "resources/subscribe", "resources/unsubscribe", "prompts/list",
	"prompts/get", "completion/complete", "logging/setLevel", "sampling/createMessage",
	"elicitation/create", "roots/list", "notifications/initialized", "notifications/cancelled",
	"notifications/progress", "notifications/message", "notifications/roots/list_changed",
	"notifications/tools/list_changed", "notifications/resources/list_changed",
	"notifications/resources/updated", "notifications/prompts/list_changed",
}

// unquote decodes a JSON string value; ok is false when raw is not one.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	for _, m := range methods {
		if string(inner) == m {
			return m, true
		}
	}
	// Escapes, and bytes that are not UTF-8 (which encoding/json reads as
	// U+FFFD), are decoded as the server's JSON decoder decodes them.
	if bytes.IndexByte(inner, '\\') >= 0 || !utf8.Valid(inner) {
		return unescape(raw)
	}
	return string(inner), true
}

// unescape decodes a JSON string written with escapes; apart, so that the
// usual string does not pay for the decoder's pointer.
func unescape(raw []byte) (string, bool) {
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err == nil
}
