package identity_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpguard/mcpguard/internal/identity"
)

func TestOfTellsTheSameValueFromAnother(t *testing.T) {
	t.Parallel()
	m := map[string]any{"a": 1}
	raw := json.RawMessage(`{"type":"object"}`)
	p := &struct{ X int }{1}
	same := [][2]any{{nil, nil}, {true, true}, {"s", "s"}, {1.5, 1.5}, {m, m}, {raw, raw}, {p, p}}
	for _, c := range same {
		if identity.Of(c[0]) != identity.Of(c[1]) {
			t.Errorf("Of(%v) differs from itself", c[0])
		}
	}
	other := [][2]any{
		{true, false}, {m, map[string]any{"a": 1}}, {raw, json.RawMessage(`{"type":"object"}`)}, {raw, raw[:3]},
		{p, &struct{ X int }{1}}, {json.RawMessage(nil), []byte(nil)}, {struct{}{}, struct{}{}}, {nil, false},
	}
	for _, c := range other {
		if identity.Of(c[0]) == identity.Of(c[1]) {
			t.Errorf("Of(%v) == Of(%v): want different", c[0], c[1])
		}
	}
}

// Two different nil slices of one type have no address: equal, and so is
// their JSON.
func TestOfNilSlices(t *testing.T) {
	t.Parallel()
	if identity.Of(json.RawMessage(nil)) != identity.Of(json.RawMessage(nil)) {
		t.Error("two nil RawMessages differ")
	}
}

func TestOfDoesNotAllocate(t *testing.T) {
	m := map[string]any{"a": 1}
	var vals = []any{nil, true, m, json.RawMessage(`{}`), &m}
	if n := testing.AllocsPerRun(100, func() {
		for _, v := range vals {
			_ = identity.Of(v)
		}
	}); n != 0 {
		t.Errorf("Of allocates %v times", n)
	}
}
