package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/mcpguard/mcpguard/internal/leak"
)

// maxJSONDepth bounds the structural redaction of JSON text. Deeper text is
// redacted as plain text instead, which is safe but may break its syntax.
const maxJSONDepth = 128

var errTooDeep = errors.New("redact: JSON nested too deeply")

// JSON redacts every string (keys included) inside a JSON document, keeping
// its structure, key order and numbers exactly. The value of a member whose
// name [IsSecretKey] is replaced by "[REDACTED]" whatever its type (string,
// number, array or object); true, false and null stay. It reports false,
// and returns the input, when text is not a single JSON object or array.
func (r *Redactor) JSON(text string) (string, bool) {
	trimmed := strings.TrimSpace(text)
	if trimmed == "" || (trimmed[0] != '{' && trimmed[0] != '[') {
		return text, false
	}
	if !r.triggered(trimmed) {
		// No rule can match anywhere, and every secret-named key contains
		// a pair trigger too: nothing to rewrite. Only validity is left.
		return text, json.Valid([]byte(trimmed))
	}
	w := jsonRewriter{r: r, dec: json.NewDecoder(strings.NewReader(trimmed))}
	w.dec.UseNumber()
	w.buf.Grow(len(trimmed))
	tok, err := w.dec.Token()
	if err == nil {
		err = w.value(tok, 0)
	}
	if err != nil {
		return text, false
	}
	if _, err := w.dec.Token(); err != io.EOF {
		return text, false
	}
	if !w.changed {
		return text, true
	}
	return w.buf.String(), true
}

// jsonRewriter copies JSON tokens to buf, redacting strings on the way.
type jsonRewriter struct {
	r       *Redactor
	dec     *json.Decoder
	buf     bytes.Buffer
	changed bool
}

func (w *jsonRewriter) value(tok json.Token, depth int) error {
	switch v := tok.(type) {
	case json.Delim:
		if depth >= maxJSONDepth {
			return errTooDeep
		}
		if v == '{' {
			return w.object(depth)
		}
		return w.array(depth)
	case string:
		w.str(v)
	case json.Number:
		w.buf.WriteString(v.String())
	case bool:
		if v {
			w.buf.WriteString("true")
		} else {
			w.buf.WriteString("false")
		}
	case nil:
		w.buf.WriteString("null")
	}
	return nil
}

func (w *jsonRewriter) str(v string) {
	red := w.r.String(v)
	if red != v {
		w.changed = true
	}
	b, _ := json.Marshal(red)
	w.buf.Write(b)
}

func (w *jsonRewriter) object(depth int) error {
	w.buf.WriteByte('{')
	for n := 0; ; n++ {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		if tok == json.Delim('}') {
			w.buf.WriteByte('}')
			return nil
		}
		key, _ := tok.(string)
		if n > 0 {
			w.buf.WriteByte(',')
		}
		w.str(key)
		w.buf.WriteByte(':')
		if tok, err = w.dec.Token(); err != nil {
			return err
		}
		if leak.IsSecretKey(key) && masked(tok) {
			w.buf.WriteString(`"` + Placeholder + `"`)
			w.changed = true
			err = w.skip(tok)
		} else {
			err = w.value(tok, depth+1)
		}
		if err != nil {
			return err
		}
	}
}

func (w *jsonRewriter) array(depth int) error {
	w.buf.WriteByte('[')
	for n := 0; ; n++ {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		if tok == json.Delim(']') {
			w.buf.WriteByte(']')
			return nil
		}
		if n > 0 {
			w.buf.WriteByte(',')
		}
		if err := w.value(tok, depth+1); err != nil {
			return err
		}
	}
}

// masked reports whether a secret-named member's value is replaced: any
// value but true, false, null, "" and the placeholder itself.
func masked(tok json.Token) bool {
	switch v := tok.(type) {
	case string:
		return v != "" && v != Placeholder
	case json.Number, json.Delim:
		return true
	}
	return false
}

// skip consumes the rest of a value that started with tok.
func (w *jsonRewriter) skip(tok json.Token) error {
	if d, ok := tok.(json.Delim); !ok || (d != '{' && d != '[') {
		return nil
	}
	for depth := 1; depth > 0; {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// Text redacts text, structurally when it is a JSON object or array (so the
// result stays valid JSON) and as plain text otherwise.
func (r *Redactor) Text(text string) string {
	if out, ok := r.JSON(text); ok {
		return out
	}
	return r.String(text)
}
