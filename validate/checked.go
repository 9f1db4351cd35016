package validate

import (
	"runtime"
	"sync"
	"unsafe"
	"weak"

	"github.com/mark3labs/mcp-go/server"
)

// schemaChecker is what a handler that binds its arguments itself checks:
// core/validate's Binder.
type schemaChecker interface {
	Checks(schema []byte) bool
}

// checkers holds the handlers that bind and check their tool's arguments
// themselves ([Handler], [StructuredHandler], and the handler [Args] makes
// of the one it wraps), by their closure's address. [DeclaredSchemas]
// leaves a tool to its handler only when the server's handler for it is
// one of these and checks exactly the schema the tool declares: a plain
// handler declared with [InputSchema] is checked like any other. An entry
// lasts as long as its handler; its weak pointer says whether the address
// is still that handler's.
var checkers sync.Map // uintptr -> *checkerEntry

type checkerEntry struct {
	h weak.Pointer[byte]
	c schemaChecker
}

type checkerKey struct {
	addr uintptr
	e    *checkerEntry
}

// maxRecordedHandlers bounds the handlers one Args layer records.
const maxRecordedHandlers = 64

// closure is the address of the closure h refers to.
func closure(h server.ToolHandlerFunc) *byte { return *(**byte)(unsafe.Pointer(&h)) }

// checkedBy records that h binds and checks its arguments with c.
func checkedBy(h server.ToolHandlerFunc, c schemaChecker) server.ToolHandlerFunc {
	p := closure(h)
	e := &checkerEntry{h: weak.Make(p), c: c}
	k := checkerKey{uintptr(unsafe.Pointer(p)), e}
	checkers.Store(k.addr, e)
	runtime.AddCleanup(p, func(k checkerKey) { checkers.CompareAndDelete(k.addr, k.e) }, k)
	return h
}

// checkerOf returns what h checks, or nil for a handler that checks
// nothing itself.
func checkerOf(h server.ToolHandlerFunc) schemaChecker {
	if h == nil {
		return nil
	}
	p := closure(h)
	v, ok := checkers.Load(uintptr(unsafe.Pointer(p)))
	if !ok {
		return nil
	}
	e := v.(*checkerEntry)
	if e.h.Value() != p {
		return nil
	}
	return e.c
}
