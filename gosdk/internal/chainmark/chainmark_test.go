package chainmark

import (
	"context"
	"testing"
)

// gosdk marks each handler it builds, so a handler is recognised whatever
// the compiler inlined: every instance of a literal built at one site
// shares its code.
func TestOursRecognisesMarkedHandlers(t *testing.T) {
	var hs []func() int
	for n := range 3 {
		hs = append(hs, func() int { return n })
	}
	Mark(hs[0])
	if !Ours(hs[0]) || !Ours(hs[2]) {
		t.Error("a handler of the marked literal is not recognised")
	}
	other := func() int { return 0 }
	if Ours(other) || Ours(nil) || Ours(42) || Ours((func())(nil)) {
		t.Error("an unmarked handler, nil or a non-function is taken for ours")
	}
}

func TestReachReportsToTheCallInTheContext(t *testing.T) {
	Reach(context.Background()) // no probe: nothing to do
	ctx, c := With(context.Background())
	if c.Reached() {
		t.Fatal("reached before any report")
	}
	Reach(context.Background())
	if c.Reached() {
		t.Fatal("a report without the probe's context reached it")
	}
	Reach(ctx)
	if !c.Reached() {
		t.Fatal("the report did not reach the call")
	}
}
