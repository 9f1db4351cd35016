package audit

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// wireDecoder reads a tool definition that encoding/json has just
// encoded (so valid, compact JSON) into the values json.Unmarshal gives
// an `any`: map[string]any, []any, string, float64, bool and nil. It
// exists for speed at gateway scale: it shares the strings of repeated
// object keys ("type", "description", ...) between definitions and skips
// the reflection, which halves what decoding a listing allocates.
// TestWireDecoderAgreesWithEncodingJSON holds it to json.Unmarshal.
type wireDecoder struct {
	b    []byte
	i    int
	keys map[string]string // interned object keys
	vals map[string]any    // interned short string values ("string", "object", ...), boxed once
	buf  []byte            // scratch for unescaping
	err  error             // a number out of float64's range, as json.Unmarshal reports it
}

// decode returns the value of b, and the error json.Unmarshal would
// return alongside the same value.
func (d *wireDecoder) decode(b []byte) (any, error) {
	d.b, d.i, d.err = b, 0, nil
	if d.keys == nil {
		d.keys, d.vals = map[string]string{}, map[string]any{}
	}
	v := d.value()
	return v, d.err
}

func (d *wireDecoder) value() any {
	switch c := d.b[d.i]; c {
	case '{':
		return d.object()
	case '[':
		return d.array()
	case '"':
		return d.strValue()
	case 't':
		d.i += len("true")
		return true
	case 'f':
		d.i += len("false")
		return false
	case 'n':
		d.i += len("null")
		return nil
	default:
		return d.number()
	}
}

func (d *wireDecoder) object() map[string]any {
	d.i++ // {
	m := map[string]any{}
	for d.b[d.i] != '}' {
		k := d.key()
		d.i++ // :
		m[k] = d.value()
		if d.b[d.i] == ',' {
			d.i++
		}
	}
	d.i++
	return m
}

func (d *wireDecoder) array() []any {
	d.i++ // [
	a := []any{}
	for d.b[d.i] != ']' {
		a = append(a, d.value())
		if d.b[d.i] == ',' {
			d.i++
		}
	}
	d.i++
	return a
}

// key returns an object key, interned.
func (d *wireDecoder) key() string {
	raw := d.strBytes()
	if k, ok := d.keys[string(raw)]; ok {
		return k
	}
	k := string(raw)
	d.keys[k] = k
	return k
}

// maxInterned is the longest string value interned: type names, formats
// and enum values repeat from tool to tool; descriptions do not.
const maxInterned = 24

// strValue reads a string value, short ones interned with their box.
func (d *wireDecoder) strValue() any {
	raw := d.strBytes()
	if len(raw) > maxInterned {
		return string(raw)
	}
	if v, ok := d.vals[string(raw)]; ok {
		return v
	}
	var v any = string(raw)
	d.vals[string(raw)] = v
	return v
}

// strBytes reads a string, unescaped, with invalid UTF-8 and lone
// surrogates replaced by U+FFFD as json.Unmarshal replaces them. The
// result is valid until the next call.
func (d *wireDecoder) strBytes() []byte {
	d.i++ // opening quote
	start := d.i
	for { // the common case: no escape, valid UTF-8, returned in place
		c := d.b[d.i]
		if c == '"' {
			d.i++
			return d.b[start : d.i-1]
		}
		if c == '\\' || c >= utf8.RuneSelf {
			break
		}
		d.i++
	}
	out := append(d.buf[:0], d.b[start:d.i]...)
	for {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			d.buf = out
			return out
		case c == '\\':
			out = d.escape(out)
		case c < utf8.RuneSelf:
			out = append(out, c)
			d.i++
		default:
			r, size := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, d.b[d.i:d.i+size]...)
			}
			d.i += size
		}
	}
}

// escape appends the character of the escape at d.i.
func (d *wireDecoder) escape(out []byte) []byte {
	c := d.b[d.i+1]
	d.i += 2
	switch c {
	case 'b':
		return append(out, '\b')
	case 'f':
		return append(out, '\f')
	case 'n':
		return append(out, '\n')
	case 'r':
		return append(out, '\r')
	case 't':
		return append(out, '\t')
	case 'u':
		r := d.hex4()
		if utf16.IsSurrogate(r) {
			if d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
				save := d.i
				d.i += 2
				if pair := utf16.DecodeRune(r, d.hex4()); pair != utf8.RuneError {
					return utf8.AppendRune(out, pair)
				}
				d.i = save // not a pair: the second escape stands alone
			}
			r = utf8.RuneError
		}
		return utf8.AppendRune(out, r)
	}
	return append(out, c) // '"', '\\', '/'
}

func (d *wireDecoder) hex4() rune {
	v, _ := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 32)
	d.i += 4
	return rune(v)
}

func (d *wireDecoder) number() any {
	start := d.i
	for d.i < len(d.b) && numberByte(d.b[d.i]) {
		d.i++
	}
	f, err := strconv.ParseFloat(string(d.b[start:d.i]), 64)
	if err != nil {
		if d.err == nil {
			d.err = err
		}
		return nil
	}
	return f
}

func numberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}
