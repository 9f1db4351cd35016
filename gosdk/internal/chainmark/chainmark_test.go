package chainmark

import (
	"context"
	"testing"
)

func TestOursRecognisesHandlersOfAMarkedLiteral(t *testing.T) {
	build := func(n int) func() int { return func() int { return n } }
	other := func() int { return 0 }
	Mark(build(1))
	if !Ours(build(2)) {
		t.Error("another closure of the marked literal is not recognised")
	}
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
