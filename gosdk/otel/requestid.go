package otel

import (
	"context"
	"reflect"
	"strconv"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// go-sdk v1.8.0 puts each incoming request's JSON-RPC ID into the handler's
// context under an unexported key, mcp.idContextKey{} (mcp/server.go,
// ServerSession.handle), and offers no accessor. The key is an empty
// struct, so its zero value, made by reflection from its type, is the key
// itself: found once, in the first context that carries it, it is then an
// ordinary ctx.Value lookup. If a go-sdk release renames it,
// jsonrpc.request.id is left out (and this module's tests fail).
const (
	idKeyPackage = "github.com/modelcontextprotocol/go-sdk/mcp"
	idKeyName    = "idContextKey"
)

// maxDiscoveries bounds how many contexts are searched for the key before
// giving up on it.
const maxDiscoveries = 16

type keyBox struct{ key any }

var (
	idKey       atomic.Pointer[keyBox]
	discoveries atomic.Int32
	contextType = reflect.TypeFor[context.Context]()
)

// requestID is the JSON-RPC ID of the request ctx serves, or "".
func requestID(ctx context.Context) string {
	box := idKey.Load()
	if box == nil {
		if discoveries.Add(1) > maxDiscoveries {
			return ""
		}
		key, ok := findIDKey(reflect.ValueOf(ctx), 0)
		if !ok {
			return ""
		}
		box = &keyBox{key}
		idKey.Store(box)
	}
	id, ok := ctx.Value(box.key).(jsonrpc.ID)
	if !ok || !id.IsValid() {
		return ""
	}
	switch v := id.Raw().(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return ""
}

// maxDepth bounds the walk up a context chain.
const maxDepth = 64

// findIDKey walks v, a context, and its parents for a value stored under
// go-sdk's idContextKey, and returns that key.
func findIDKey(v reflect.Value, depth int) (any, bool) {
	for ; depth < maxDepth; depth++ {
		for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return nil, false
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return nil, false
		}
		if k := v.FieldByName("key"); k.IsValid() && k.Kind() == reflect.Interface && !k.IsNil() {
			if t := k.Elem().Type(); t.PkgPath() == idKeyPackage && t.Name() == idKeyName {
				return reflect.Zero(t).Interface(), true
			}
		}
		parent, ok := parentOf(v)
		if !ok {
			return nil, false
		}
		v = parent
	}
	return nil, false
}

// parentOf is the first field of struct v, or of a struct embedded in it,
// that holds a context.Context.
func parentOf(v reflect.Value) (reflect.Value, bool) {
	for i := range v.NumField() {
		f := v.Field(i)
		switch {
		case f.Type() == contextType:
			return f, true
		case f.Kind() == reflect.Struct && v.Type().Field(i).Anonymous:
			if p, ok := parentOf(f); ok {
				return p, true
			}
		}
	}
	return reflect.Value{}, false
}
