package redact

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strings"
)

// secretKeyName matches a JSON member name whose string value is a secret.
var secretKeyName = regexp.MustCompile(`(?i)^(` + secretKeys + `)$`)

// maxJSONDepth bounds the structural redaction of JSON text. Deeper text is
// redacted as plain text instead, which is safe but may break its syntax.
const maxJSONDepth = 128

// JSON redacts every string (keys included) inside a JSON document, keeping
// its structure, key order and numbers exactly. It reports false, and
// returns the input, when text is not a single JSON object or array.
func (r *Redactor) JSON(text string) (string, bool) {
	trimmed := strings.TrimSpace(text)
	if trimmed == "" || (trimmed[0] != '{' && trimmed[0] != '[') {
		return text, false
	}
	if !r.triggered(trimmed) {
		// No rule can match anywhere, and every secret-named key contains
		// a trigger too: nothing to rewrite. Only validity is left to check.
		return text, json.Valid([]byte(trimmed))
	}
	if trimmed == "" || (trimmed[0] != '{' && trimmed[0] != '[') {
		return text, false
	}
	dec := json.NewDecoder(strings.NewReader(trimmed))
	dec.UseNumber()
	var buf bytes.Buffer
	buf.Grow(len(trimmed))
	changed := false
	// needComma[depth] says whether the next value at that depth needs a
	// separator; isObj says whether the container is an object.
	type frame struct {
		obj       bool
		n         int
		expectKey bool
		secretKey bool // the value being read belongs to a secret-named key
	}
	var stack []frame
	writeSep := func() {
		if len(stack) == 0 {
			return
		}
		top := &stack[len(stack)-1]
		if top.obj {
			if top.expectKey {
				if top.n > 0 {
					buf.WriteByte(',')
				}
			} else {
				buf.WriteByte(':')
			}
		} else if top.n > 0 {
			buf.WriteByte(',')
		}
	}
	advance := func() {
		if len(stack) == 0 {
			return
		}
		top := &stack[len(stack)-1]
		if top.obj {
			if top.expectKey {
				top.expectKey = false
			} else {
				top.expectKey = true
				top.n++
			}
		} else {
			top.n++
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return text, false
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				writeSep()
				if len(stack) >= maxJSONDepth {
					return text, false
				}
				stack = append(stack, frame{obj: v == '{', expectKey: v == '{'})
				buf.WriteByte(byte(v))
			case '}', ']':
				stack = stack[:len(stack)-1]
				buf.WriteByte(byte(v))
				advance()
			}
			continue
		case string:
			writeSep()
			red := r.String(v)
			if n := len(stack); n > 0 && stack[n-1].obj {
				top := &stack[n-1]
				if top.expectKey {
					top.secretKey = secretKeyName.MatchString(v)
				} else if top.secretKey && v != "" {
					red = Placeholder
				}
			}
			if red != v {
				changed = true
			}
			b, _ := json.Marshal(red)
			buf.Write(b)
		case json.Number:
			writeSep()
			buf.WriteString(v.String())
		case bool:
			writeSep()
			if v {
				buf.WriteString("true")
			} else {
				buf.WriteString("false")
			}
		case nil:
			writeSep()
			buf.WriteString("null")
		}
		advance()
		if len(stack) == 0 {
			break
		}
	}
	if dec.More() || len(stack) != 0 {
		return text, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return text, false
	}
	if !changed {
		return text, true
	}
	return buf.String(), true
}

// Text redacts text, structurally when it is a JSON object or array (so the
// result stays valid JSON) and as plain text otherwise.
func (r *Redactor) Text(text string) string {
	if out, ok := r.JSON(text); ok {
		return out
	}
	return r.String(text)
}

// IsSecretKey reports whether a member or parameter name conventionally
// holds a credential ("password", "api_key", "token", …), whose value is
// never shown or logged.
func IsSecretKey(name string) bool { return secretKeyName.MatchString(name) }
