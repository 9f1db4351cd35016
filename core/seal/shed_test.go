package seal_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
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

// TestShedStateRoundsAreBounded: a shed state opens only with 1 to 99
// rounds and a rounds field that is a number before a colon; any other, sealed
// under the server's own key (as a bug or an old release could), is
// refused as tampered.
func TestShedStateRoundsAreBounded(t *testing.T) {
	ctx := context.Background()
	var log bytes.Buffer
	g := seal.NewGuard(nil, nil, func(ctx context.Context) string { return "alice" })
	g.Logger = slog.New(slog.NewTextHandler(&log, nil))
	b := g.Binding(ctx, "deploy", []byte(`{"env":"prod"}`))
	for _, c := range []struct {
		rounds int
		ok     bool
	}{{-1, false}, {0, false}, {1, true}, {2, true}, {98, true}, {99, true}, {100, false}, {1 << 30, false}} {
		shed, err := g.SealShed(b, c.rounds, "step=2")
		if err != nil {
			t.Fatal(err)
		}
		o, err := g.OpenCall(ctx, b, shed)
		if c.ok && (err != nil || o != (seal.Opened{State: "step=2", Rounds: c.rounds})) {
			t.Errorf("rounds %d: OpenCall = %+v, %v", c.rounds, o, err)
		}
		if !c.ok && err == nil {
			t.Errorf("rounds %d: opened %+v", c.rounds, o)
		}
	}
	shedB := b
	shedB.Method = seal.MethodCallTool + "#shed" // written out: a renamed method must fail here
	for _, state := range []string{"", "step=2", "x:step=2", "1", " 1:step=2", "1.0:step=2"} {
		log.Reset()
		sealed, err := g.Seal(shedB, state)
		if err != nil {
			t.Fatal(err)
		}
		if o, err := g.OpenCall(ctx, b, sealed); err == nil {
			t.Errorf("%q: opened %+v", state, o)
		}
		if !strings.Contains(log.String(), seal.ErrTampered.Error()) {
			t.Errorf("%q: logged %q, want the tampered reason", state, log.String())
		}
	}
}
