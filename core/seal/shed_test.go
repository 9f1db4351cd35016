package seal_test

import (
	"context"
	"testing"

	"github.com/mcpguard/mcpguard/core/seal"
)

// TestShedStatesAreTheirOwn: a load-shedding answer's state opens only
// as one, with its rounds and the handler's state it carries; a
// handler's state that reads like one stays the handler's; edited, or
// echoed for another call or caller, it is refused as every state is.
func TestShedStatesAreTheirOwn(t *testing.T) {
	ctx := context.Background()
	g := seal.NewGuard(nil, nil, func(ctx context.Context) string { return "alice" })
	b := g.Binding(ctx, "deploy", []byte(`{"env":"prod"}`))
	shed, err := g.SealShed(b, 1, "step=2")
	if err != nil {
		t.Fatal(err)
	}
	if o, err := g.OpenCall(ctx, b, shed); err != nil || o != (seal.Opened{State: "step=2", Rounds: 1}) {
		t.Fatalf("OpenCall = %+v, %v", o, err)
	}
	if _, err := g.Open(ctx, b, shed); err == nil {
		t.Fatal("a shed state opened as the handler's")
	}
	handlers, _ := g.Seal(b, "1:step=2")
	if o, err := g.OpenCall(ctx, b, handlers); err != nil || o != (seal.Opened{State: "1:step=2"}) {
		t.Fatalf("a handler's state read as a shed state: %+v, %v", o, err)
	}
	other := b
	other.Caller = "bob"
	edited := []byte(shed)
	edited[len(edited)/2] ^= 1
	for name, try := range map[string]struct {
		b     seal.Binding
		state string
	}{
		"other caller":    {other, shed},
		"other arguments": {g.Binding(ctx, "deploy", []byte(`{"env":"dev"}`)), shed},
		"edited":          {b, string(edited)},
	} {
		if o, err := g.OpenCall(ctx, try.b, try.state); err == nil {
			t.Errorf("%s: opened %+v", name, o)
		}
	}
}
