// Package identity tells, without reading them, whether two values an
// SDK's tool registration holds in an interface are the very same: the
// fronts' pins (middleware.WithPins, gosdk.WithPins) read a tool's
// definition again only when its registration changed, and a
// registration is new maps, slices and pointers.
package identity

import (
	"reflect"
	"unsafe"
)

// Ref is a comparable stand-in for a value, from [Of].
type Ref struct {
	t reflect.Type
	p unsafe.Pointer // keeps the value alive: its address cannot be reused meanwhile
	n int
	v any // a scalar
}

// Of returns a stand-in for v: nil, a bool, a string or a number itself;
// a map, slice or pointer its type and address (and length); anything
// else a fresh address that equals nothing, which only costs the caller a
// reading. Two stand-ins are equal only if the values are the same,
// unless a map, slice or pointee was edited in place, which no identity
// can see. It does not allocate but in the last case.
func Of(v any) Ref {
	switch v.(type) {
	case nil, bool, string, float64, int, int64:
		return Ref{v: v}
	}
	switch r := reflect.ValueOf(v); r.Kind() {
	case reflect.Map, reflect.Slice:
		return Ref{t: r.Type(), p: r.UnsafePointer(), n: r.Len()}
	case reflect.Pointer:
		return Ref{t: r.Type(), p: r.UnsafePointer(), n: -1}
	}
	return Ref{p: unsafe.Pointer(new(byte))}
}
