package chainmark

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
)

var (
	ours   sync.Map // code pointer (uintptr) -> struct{}
	active atomic.Bool
)

// Mark records that handlers built by the same function literal as h are
// this module's own layers, transparent to the probe. It runs when a
// layer is built, not per call.
func Mark(h any) { ours.Store(reflect.ValueOf(h).Pointer(), struct{}{}) }

// Ours reports whether h is one of the marked layers.
func Ours(h any) bool {
	v := reflect.ValueOf(h)
	if v.Kind() != reflect.Func || v.IsNil() {
		return false
	}
	_, ok := ours.Load(v.Pointer())
	return ok
}

// Call is what a probe learns of one tool call.
type Call struct{ reached atomic.Bool }

type key struct{}

// With returns ctx carrying a fresh Call for gosdk.Middleware to report
// to, and switches reporting on in the process.
func With(ctx context.Context) (context.Context, *Call) {
	active.Store(true)
	c := &Call{}
	return context.WithValue(ctx, key{}, c), c
}

// Reach is called by gosdk.Middleware for each tool call it serves.
func Reach(ctx context.Context) {
	if !active.Load() {
		return
	}
	if c, ok := ctx.Value(key{}).(*Call); ok {
		c.reached.Store(true)
	}
}

// Reached reports whether gosdk.Middleware served the call.
func (c *Call) Reached() bool { return c.reached.Load() }
