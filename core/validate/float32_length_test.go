package validate_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/validate"
)

// A float32 written in 38 characters or fewer, without an exponent, is
// at most 10^38, inside float32's range: the scan lets encoding/json bind
// it, at the cost of a short one (plus the copy encoding/json makes of a
// number over 32 bytes to parse it), not the slow path's (about 60).
// Longer ones go to the slow path, which checks float32's bound exactly.
func TestFloat32UpTo38CharactersStaysOnTheFastPathAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what escapes")
	}
	bind := binds[flatArgs]()
	short := json.RawMessage(`{"query":"mcp servers","ratio":0.5}`)
	want := testing.AllocsPerRun(100, func() { _ = bind(short) })
	for _, n := range []string{
		"1" + strings.Repeat("0", 37),        // 10^37
		"-" + strings.Repeat("9", 37),        // -(10^37 - 1)
		"0." + strings.Repeat("0", 35) + "1", // 10^-36
	} {
		if len(n) != 38 {
			t.Fatalf("%s is %d characters", n, len(n))
		}
		args := json.RawMessage(`{"query":"mcp servers","ratio":` + n + `}`)
		if err := bind(args); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if got := testing.AllocsPerRun(100, func() { _ = bind(args) }); got > want+1 {
			t.Errorf("ratio %s: %v allocations, want at most %v, one more than for 0.5", n, got, want+1)
		}
	}
}

// Past 38 characters a float32 is checked exactly: one just above the
// largest float32, which strconv would round down to it, is refused.
func TestFloat32JustAboveItsRangeIsRefused(t *testing.T) {
	t.Parallel()
	env := invalid(t, call(t, validate.NewBinder[flatArgs](), `{"query":"mcp servers","ratio":340282350000000000000000000000000000000}`))
	if f := field(t, env, "ratio"); f.Rule != "max" || f.Message != "ratio must be at most 3.4028234663852886e+38" {
		t.Fatalf("got %+v", env.Fields)
	}
}
