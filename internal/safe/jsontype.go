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

// encodings caches each type's encoding; types are few and fixed.
var encodings sync.Map // reflect.Type -> jsonEncoding

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
	switch encodingOf(v.Type()) {
	case byReflection:
		return true
	case byReflectionWithFloats:
		return finite(v, 0)
	}
	return false
}

func encodingOf(t reflect.Type) jsonEncoding {
	if e, ok := encodings.Load(t); ok {
		return e.(jsonEncoding)
	}
	e := typeEncoding(t, map[reflect.Type]bool{})
	encodings.Store(t, e)
	return e
}

// typeEncoding classifies t; visiting holds the types being classified,
// to find recursive ones.
func typeEncoding(t reflect.Type, visiting map[reflect.Type]bool) jsonEncoding {
	if visiting[t] || t == numberType || t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
		return byMethods
	}
	visiting[t] = true
	defer delete(visiting, t)
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return byReflection
	case reflect.Float32, reflect.Float64:
		return byReflectionWithFloats
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return typeEncoding(t.Elem(), visiting)
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			if typeEncoding(t.Key(), visiting) != byReflection {
				return byMethods
			}
			return typeEncoding(t.Elem(), visiting)
		}
	case reflect.Struct:
		e := byReflection
		for i := range t.NumField() {
			switch typeEncoding(t.Field(i).Type, visiting) {
			case byMethods:
				return byMethods
			case byReflectionWithFloats:
				e = byReflectionWithFloats
			}
		}
		return e
	}
	return byMethods // interfaces, channels, functions, complex numbers
}

// maxFiniteDepth bounds the walk; a type is not recursive, so a value is
// only as deep as its type, but a fixed bound keeps the cost obvious.
const maxFiniteDepth = 64

// finite reports whether every float in v is a number encoding/json can
// encode. v's type is byReflectionWithFloats or byReflection.
func finite(v reflect.Value, depth int) bool {
	if depth > maxFiniteDepth {
		return false
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		return !math.IsNaN(f) && !math.IsInf(f, 0)
	case reflect.Pointer:
		return v.IsNil() || finite(v.Elem(), depth+1)
	case reflect.Slice, reflect.Array:
		if encodingOf(v.Type().Elem()) == byReflection {
			return true
		}
		for i := range v.Len() {
			if !finite(v.Index(i), depth+1) {
				return false
			}
		}
	case reflect.Map:
		if encodingOf(v.Type().Elem()) == byReflection {
			return true
		}
		for it := v.MapRange(); it.Next(); {
			if !finite(it.Value(), depth+1) {
				return false
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if encodingOf(v.Type().Field(i).Type) == byReflectionWithFloats && !finite(v.Field(i), depth+1) {
				return false
			}
		}
	}
	return true
}
