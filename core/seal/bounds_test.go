package seal_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/core/seal"
)

// The smallest and the largest states a Sealer seals open again: an empty
// state under a one-character key id, and a state of the bound's exact
// length under a key id of the longest length. One byte more is refused.
func TestBoundsAreInclusive(t *testing.T) {
	longID := strings.Repeat("k", 64)
	for _, kid := range []string{"a", longID} {
		s := seal.New(ring(t, kid+":"+key(7)), seal.WithMaxState(100))
		for _, state := range []string{"", strings.Repeat("s", 100)} {
			got, err := s.Open(call, mustSeal(t, s, call, state))
			if err != nil || got != state {
				t.Errorf("key id of %d, state of %d bytes: got %d bytes, %v", len(kid), len(state), len(got), err)
			}
		}
		if _, err := s.Seal(call, strings.Repeat("s", 101)); !errors.Is(err, seal.ErrTooLarge) {
			t.Errorf("key id of %d, a state over the bound: err = %v", len(kid), err)
		}
	}
	if _, err := seal.ParseKeyRing([]byte(longID + "k:" + key(7))); err == nil {
		t.Error("a key id of 65 characters was accepted")
	}
}

// A sealed state cut short, or grown past what the bound allows, is
// refused as tampered, at every length around the smallest sealed state.
func TestOpenRefusesEveryShorterState(t *testing.T) {
	s := seal.New(ring(t, "a:"+key(7)))
	sealed := mustSeal(t, s, call, "")
	for n := range len(sealed) {
		if _, err := s.Open(call, sealed[:n]); !errors.Is(err, seal.ErrTampered) {
			t.Fatalf("a sealed state cut to %d of %d characters: err = %v", n, len(sealed), err)
		}
	}
	if _, err := s.Open(call, sealed+"A"); !errors.Is(err, seal.ErrTampered) {
		t.Fatalf("a sealed state one character longer: err = %v", err)
	}
}

// WithTTL and WithMaxState ignore a zero or negative value: the defaults
// stay.
func TestZeroOptionsKeepTheDefaults(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := seal.New(nil, seal.WithTTL(0), seal.WithTTL(-time.Second), seal.WithMaxState(0), seal.WithMaxState(-1),
		seal.WithClock(func() time.Time { return now }))
	sealed := mustSeal(t, s, call, strings.Repeat("s", seal.DefaultMaxState))
	now = now.Add(seal.DefaultTTL)
	if _, err := s.Open(call, sealed); err != nil {
		t.Fatalf("at the default expiry, a state of the default bound: %v", err)
	}
	if _, err := s.Seal(call, strings.Repeat("s", seal.DefaultMaxState+1)); !errors.Is(err, seal.ErrTooLarge) {
		t.Fatalf("over the default bound: err = %v", err)
	}
}

// Errors name a key ring's entries by their number among the keys,
// comments and blank lines not counted.
func TestParseKeyRingNamesTheEntry(t *testing.T) {
	_, err := seal.ParseKeyRing([]byte("# keys\n\na:" + key(1) + "\nb"))
	if err == nil || !strings.Contains(err.Error(), "entry 2") {
		t.Fatalf("err = %v, want it to name entry 2", err)
	}
}
