package validate

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// flatField is how the fast decoder stores one member: at offset in the
// struct, as kind, through a pointer when ptr.
type flatField struct {
	offset uintptr
	kind   kind
	bits   int
	ptr    bool
	rt     reflect.Type // the pointed-to type, for ptr
}

// flatPlan prepares the fast decoder for ti, or returns nil when ti has a
// member it does not handle (anything but strings, booleans and numbers,
// by value or by one pointer), in which case json.Unmarshal binds.
func flatPlan(ti *typeInfo) map[string]flatField {
	if ti.kind != kStruct || ti.hasEmbPtr || customDecoding(ti.rt) {
		return nil
	}
	out := make(map[string]flatField, len(ti.fields))
	for _, f := range ti.fields {
		switch f.typ.kind {
		case kString, kBool, kInt, kUint, kFloat:
		default:
			return nil
		}
		sf := ti.rt.FieldByIndex(f.index)
		if customDecoding(sf.Type) {
			return nil
		}
		ptr := sf.Type.Kind() == reflect.Pointer
		if ptr && sf.Type.Elem().Kind() == reflect.Pointer {
			return nil
		}
		if !ptr && sf.Type.Kind() != f.typ.rt.Kind() {
			return nil
		}
		var off uintptr
		t := ti.rt
		for _, i := range f.index {
			fld := t.Field(i)
			off += fld.Offset
			t = fld.Type
		}
		ff := flatField{offset: off, kind: f.typ.kind, bits: f.typ.bits, ptr: ptr}
		if ptr {
			ff.rt = sf.Type.Elem()
		}
		out[f.jsonName] = ff
	}
	return out
}

var (
	jsonUnmarshaler = reflect.TypeFor[interface{ UnmarshalJSON([]byte) error }]()
	textUnmarshaler = reflect.TypeFor[interface{ UnmarshalText([]byte) error }]()
)

// customDecoding reports whether encoding/json would decode t, or what it
// points to, with the type's own method.
func customDecoding(t reflect.Type) bool {
	for {
		if t.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler) ||
			reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
			return true
		}
		if t.Kind() != reflect.Pointer {
			return false
		}
		t = t.Elem()
	}
}

// decodeFlat binds raw, an object the scanner found clean, into dst, a
// pointer to a zero struct, exactly as json.Unmarshal would, without its
// reflection. It reports false, leaving dst to be reset, on anything it
// does not handle exactly (escapes, invalid UTF-8, numbers out of range or
// outside JSON's grammar): json.Unmarshal then decides.
func decodeFlat(raw []byte, dst unsafe.Pointer, fields map[string]flatField) bool {
	d := flatDecoder{b: raw}
	d.ws()
	if !d.lit('{') {
		return false
	}
	d.ws()
	if d.lit('}') {
		return d.end()
	}
	for {
		d.ws()
		key, ok := d.plainString()
		if !ok {
			return false
		}
		f, known := fields[text(key)]
		if !known {
			return false
		}
		d.ws()
		if !d.lit(':') {
			return false
		}
		d.ws()
		if !d.value(unsafe.Add(dst, f.offset), f) {
			return false
		}
		d.ws()
		if d.lit(',') {
			continue
		}
		if d.lit('}') {
			return d.end()
		}
		return false
	}
}

type flatDecoder struct {
	b []byte
	i int
}

func (d *flatDecoder) ws() {
	for d.i < len(d.b) && (d.b[d.i] == ' ' || d.b[d.i] == '\t' || d.b[d.i] == '\n' || d.b[d.i] == '\r') {
		d.i++
	}
}

func (d *flatDecoder) lit(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *flatDecoder) end() bool {
	d.ws()
	return d.i == len(d.b)
}

// plainString reads a string without escapes and with valid UTF-8.
func (d *flatDecoder) plainString() ([]byte, bool) {
	if !d.lit('"') {
		return nil, false
	}
	start, ascii := d.i, true
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			return s, ascii || utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		}
		d.i++
	}
	return nil, false
}

// number reads a JSON number, checking its grammar, and reports whether
// it has no fraction or exponent.
func (d *flatDecoder) number() (text []byte, integer, ok bool) {
	start := d.i
	d.lit('-')
	switch {
	case d.lit('0'):
	case d.i < len(d.b) && d.b[d.i] >= '1' && d.b[d.i] <= '9':
		d.digits()
	default:
		return nil, false, false
	}
	integer = true
	if d.lit('.') {
		integer = false
		if !d.digits() {
			return nil, false, false
		}
	}
	if d.lit('e') || d.lit('E') {
		integer = false
		if !d.lit('+') {
			d.lit('-')
		}
		if !d.digits() {
			return nil, false, false
		}
	}
	return d.b[start:d.i], integer, true
}

func (d *flatDecoder) digits() bool {
	start := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	return d.i > start
}

func (d *flatDecoder) value(p unsafe.Pointer, f flatField) bool {
	if d.word("null") {
		if !f.ptr {
			return false // the scanner sends these to the slow path
		}
		*(*unsafe.Pointer)(p) = nil
		return true
	}
	if f.ptr {
		np := reflect.New(f.rt).UnsafePointer()
		if !d.scalar(np, f) {
			return false
		}
		*(*unsafe.Pointer)(p) = np
		return true
	}
	return d.scalar(p, f)
}

// word reads w, a literal such as null or true.
func (d *flatDecoder) word(w string) bool {
	if strings.HasPrefix(text(d.b[d.i:]), w) {
		d.i += len(w)
		return true
	}
	return false
}

func (d *flatDecoder) scalar(p unsafe.Pointer, f flatField) bool {
	switch f.kind {
	case kString:
		s, ok := d.plainString()
		if !ok {
			return false
		}
		*(*string)(p) = string(s)
		return true
	case kBool:
		switch {
		case d.word("true"):
			*(*bool)(p) = true
		case d.word("false"):
			*(*bool)(p) = false
		default:
			return false
		}
		return true
	case kInt, kUint:
		return d.integer(p, f)
	case kFloat:
		t, _, ok := d.number()
		if !ok {
			return false
		}
		v, err := strconv.ParseFloat(text(t), f.bits)
		if err != nil || math.IsInf(v, 0) {
			return false
		}
		if f.bits == 32 {
			*(*float32)(p) = float32(v)
		} else {
			*(*float64)(p) = v
		}
		return true
	}
	return false
}

// integer reads an integer without fraction or exponent that fits f,
// signed or not, and stores it at p in f's width.
func (d *flatDecoder) integer(p unsafe.Pointer, f flatField) bool {
	t, integer, ok := d.number()
	if !ok || !integer {
		return false
	}
	var v uint64
	if f.kind == kInt {
		n, err := strconv.ParseInt(text(t), 10, f.bits)
		if err != nil {
			return false
		}
		v = uint64(n) // the same bits, stored below at f's width
	} else {
		if t[0] == '-' {
			return false
		}
		n, err := strconv.ParseUint(text(t), 10, f.bits)
		if err != nil {
			return false
		}
		v = n
	}
	switch f.bits {
	case 8:
		*(*uint8)(p) = uint8(v)
	case 16:
		*(*uint16)(p) = uint16(v)
	case 32:
		*(*uint32)(p) = uint32(v)
	default:
		*(*uint64)(p) = v
	}
	return true
}

// text is b as a string, without copying: for parsing only.
func text(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
