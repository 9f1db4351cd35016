package seal

import (
	"context"
	"strconv"
	"strings"
)

// This file seals the requestState of a load-shedding answer: an
// input_required result with no input requests, which a 2026-07-28
// client's SDK answers by sending the same call again with the state
// (core/limit's Absorb decides when). The state is the consumer's, not
// the handler's: it says how many such answers the call had, and
// carries the state the call echoed, which the re-send restores, so that
// the handler sees exactly the call it would have.

// shedMethod is the method a shed state's binding names in place of
// tools/call: a handler's state never opens as a shed state, nor a shed
// state as a handler's, whatever either holds.
const shedMethod = MethodCallTool + "#shed"

// maxShedRounds bounds the rounds a shed state may say; a state that
// says more (none is sealed so) does not open.
const maxShedRounds = 99

// Opened is a state a call echoed, opened by [Guard.OpenCall].
type Opened struct {
	// State is the handler's state: the one the call echoed, or the one
	// a shed state carries ("" for none).
	State string
	// Rounds is how many load-shedding answers the call had: 0 unless
	// the state was a shed state.
	Rounds int
}

// shedBinding is b for a shed state.
func shedBinding(b Binding) Binding {
	b.Method = shedMethod
	return b
}

// SealShed returns the requestState of the load-shedding answer to the
// call b describes, its rounds-th (1 for the first), carrying inner, the
// handler's state the call echoed, opened ("" for none). It fails as
// [Guard.Seal] does.
func (g *Guard) SealShed(b Binding, rounds int, inner string) (string, error) {
	return g.Seal(shedBinding(b), strconv.Itoa(rounds)+":"+inner)
}

// OpenCall is [Guard.Open] for a call that may echo the state of a
// load-shedding answer ([Guard.SealShed]): it opens either, decrypting
// once, and refuses what does not open as Open does.
func (g *Guard) OpenCall(ctx context.Context, b Binding, sealed string) (Opened, error) {
	alt := shedBinding(b)
	state, shed, err := g.Sealer.open(&b, &alt, sealed)
	if err != nil {
		return Opened{}, g.refuse(ctx, b, err)
	}
	if !shed {
		return Opened{State: state}, nil
	}
	n, inner, ok := strings.Cut(state, ":")
	rounds, aerr := strconv.Atoi(n)
	if !ok || aerr != nil || rounds < 1 || rounds > maxShedRounds {
		return Opened{}, g.refuse(ctx, b, ErrTampered)
	}
	return Opened{State: inner, Rounds: rounds}, nil
}
