package safe

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"sync"
)

// A type's encoding, as encoding/json would do it by reflection.
type jsonEncoding uint8

const (
	// byMethods: a MarshalJSON or MarshalText somewhere in the type, an
	// interface (whose dynamic value could have one), json.Number, a
	// recursive type (a cycle is an error), or a kind encoding/json
	// refuses: encoding may run the value's code or fail.
	byMethods jsonEncoding = iota
	// byReflection: strings, integers, booleans and containers of them
	// only: encoding can neither call code nor fail.
	byReflection
	// byReflectionWithFloats: as byReflection, but a NaN or an infinity
	// makes encoding fail, so the value's floats must be checked.
	byReflectionWithFloats
)

// typeInfo is what the walk of a value needs to know of its type.
type typeInfo struct {
	enc jsonEncoding
	// elem is the element's, for pointers, slices, arrays and maps.
	elem *typeInfo
	// floats are the fields of a struct whose type has floats.
	floats []fieldInfo
}

type fieldInfo struct {
	index int
	info  *typeInfo
}

// infos caches each type's typeInfo; types are few and fixed.
var infos sync.Map // reflect.Type -> *typeInfo

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	numberType        = reflect.TypeFor[json.Number]()
)

// plainTyped reports whether v, of a type PlainJSON's fast cases do not
// cover (a handler's struct, typically), is encoded by reflection alone
// and cannot fail: a cached look at its type, and a walk of its floats
// when it has some.
func plainTyped(v reflect.Value) bool {
	info := infoOf(v.Type())
	switch info.enc {
	case byReflection:
		return true
	case byReflectionWithFloats:
		return finite(v, info, 0)
	}
	return false
}

func infoOf(t reflect.Type) *typeInfo {
	if i, ok := infos.Load(t); ok {
		return i.(*typeInfo)
	}
	i := describe(t, map[reflect.Type]bool{})
	infos.Store(t, i)
	return i
}

var methods = &typeInfo{enc: byMethods}

// describe classifies t; visiting holds the types being classified, to
// find recursive ones.
func describe(t reflect.Type, visiting map[reflect.Type]bool) *typeInfo {
	if visiting[t] || t == numberType || t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
		return methods
	}
	visiting[t] = true
	defer delete(visiting, t)
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return &typeInfo{enc: byReflection}
	case reflect.Float32, reflect.Float64:
		return &typeInfo{enc: byReflectionWithFloats}
	case reflect.Pointer, reflect.Slice, reflect.Array:
		elem := describe(t.Elem(), visiting)
		return &typeInfo{enc: elem.enc, elem: elem}
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			if describe(t.Key(), visiting).enc != byReflection {
				return methods // a key of the handler's with a MarshalText
			}
			elem := describe(t.Elem(), visiting)
			return &typeInfo{enc: elem.enc, elem: elem}
		}
	case reflect.Struct:
		info := &typeInfo{enc: byReflection}
		for i := range t.NumField() {
			f := describe(t.Field(i).Type, visiting)
			switch f.enc {
			case byMethods:
				return methods
			case byReflectionWithFloats:
				info.enc = byReflectionWithFloats
				info.floats = append(info.floats, fieldInfo{i, f})
			}
		}
		return info
	}
	return methods // interfaces, channels, functions, complex numbers
}

// finite reports whether every float in v, of the type info describes, is
// a number encoding/json can encode. A type is not recursive, so a value
// is only as deep as its type; the depth bound only keeps the cost obvious.
func finite(v reflect.Value, info *typeInfo, depth int) bool {
	if info.enc == byReflection {
		return true
	}
	if depth > maxPlainDepth*4 {
		return false
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		return !math.IsNaN(f) && !math.IsInf(f, 0)
	case reflect.Pointer:
		return v.IsNil() || finite(v.Elem(), info.elem, depth+1)
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if !finite(v.Index(i), info.elem, depth+1) {
				return false
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if !finite(it.Value(), info.elem, depth+1) {
				return false
			}
		}
	case reflect.Struct:
		for _, f := range info.floats {
			if !finite(v.Field(f.index), f.info, depth+1) {
				return false
			}
		}
	}
	return true
}
