package chainmark

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
)

var (
	ours        sync.Map // code pointer (uintptr) -> struct{}
	transparent sync.Map // code pointer (uintptr) -> struct{}
	active      atomic.Bool
)

// Mark records that handlers built by the same function literal as h are
// this module's own layers, transparent to the probe. It runs when a
// layer is built, not per call.
func Mark(h any) { ours.Store(reflect.ValueOf(h).Pointer(), struct{}{}) }

// Ours reports whether h is one of the marked layers.
func Ours(h any) bool { return marked(&ours, h) }

// MarkTransparent records that handlers built by the same function literal
// as h are layers of this repository that may sit outside gosdk.Middleware
// (gosdk/otel's tracing, which must see the final result): they never
// fail a call or swallow a panic of their own. Such a layer checks its own
// next handler once, when it is built, and calls [Outside] on each tool
// call when that handler is neither ours nor transparent, so that a probe
// outside it still sees a middleware of the server's between it and
// gosdk.Middleware.
func MarkTransparent(h any) { transparent.Store(reflect.ValueOf(h).Pointer(), struct{}{}) }

// Transparent reports whether h is a layer marked by [MarkTransparent].
func Transparent(h any) bool { return marked(&transparent, h) }

// Vouches reports whether a transparent layer wrapping next leads to
// gosdk.Middleware through this repository's layers only, as far as it
// can tell from next alone.
func Vouches(next any) bool { return Ours(next) || Transparent(next) }

func marked(m *sync.Map, h any) bool {
	v := reflect.ValueOf(h)
	if v.Kind() != reflect.Func || v.IsNil() {
		return false
	}
	_, ok := m.Load(v.Pointer())
	return ok
}

// Outside is called, per tool call, by a transparent layer whose next
// handler it cannot vouch for: the probe in ctx, if any, then treats the
// call as passing through a middleware outside gosdk.Middleware.
func Outside(ctx context.Context) {
	if !active.Load() {
		return
	}
	if c, ok := ctx.Value(key{}).(*Call); ok {
		c.outside.Store(true)
	}
}

// Call is what a probe learns of one tool call.
type Call struct{ reached, outside atomic.Bool }

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

// Vouched reports whether every transparent layer the call passed through
// could vouch for the handler it called next ([Outside] was not called).
func (c *Call) Vouched() bool { return !c.outside.Load() }
