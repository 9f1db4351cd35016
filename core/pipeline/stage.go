package pipeline

// Stage is one step of a tool call's admission, before its handler runs.
type Stage uint8

// The stages, in no particular order; [Admission] gives the order.
const (
	// Repeats is the repeated-failure guard.
	Repeats Stage = iota + 1
	// Limits are the rate, concurrency and time bounds.
	Limits
	// Declared is the check of the arguments against the tool's declared
	// input schema.
	Declared
	// Hints puts the tool's configured next steps into its failures (and
	// successes). It refuses nothing; where it sits decides which refusals
	// get the tool's steps ([Stage.Hinted]).
	Hints
	// Pins refuses a call of a tool whose definition is not the one
	// approved (core/pin).
	Pins
)

// String returns the stage's name: "repeats", "pins", "hints", "limits"
// or "declared".
func (s Stage) String() string {
	switch s {
	case Repeats:
		return "repeats"
	case Pins:
		return "pins"
	case Hints:
		return "hints"
	case Limits:
		return "limits"
	case Declared:
		return "declared"
	}
	return "unknown"
}

// admission is the one order of the stages, outermost first; see the
// package documentation for why.
var admission = [...]Stage{Repeats, Pins, Hints, Limits, Declared}

// Admission returns the stages a call passes before its handler, outermost
// first. The slice is a fresh copy.
func Admission() []Stage { return append([]Stage(nil), admission[:]...) }

// Hinted reports whether a call that s refuses gets its tool's error
// hints, as a failure of its handler does: whether s runs inside [Hints]
// in the admission order. A limit's and the declared check's refusals do
// (the step a user wrote for the tool's validation_error is for any of
// its validation errors); the repeated-failure guard's do not (the call
// it holds back quotes its last failure's steps, which carried them).
// A consumer that answers a refusal itself, rather than through a chain
// of layers in [Layers.Ordered] order (mcpguard-proxy), asks this.
func (s Stage) Hinted() bool {
	inside := false
	for _, a := range admission {
		if a == s {
			return inside
		}
		inside = inside || a == Hints
	}
	return false // an unknown stage
}

// Layers holds a consumer's layers for each stage, of whatever type it
// chains (an mcp-go middleware, a go-sdk middleware, a check function of
// the proxy). An empty stage is off.
type Layers[L any] struct {
	Repeats  []L
	Pins     []L
	Hints    []L
	Limits   []L
	Declared []L
}

// Ordered returns the layers in the admission order, outermost first, the
// layers of one stage in the order given.
func (l Layers[L]) Ordered() []L {
	var out []L // built once per chain: no capacity to compute
	for _, s := range admission {
		out = append(out, l.of(s)...)
	}
	return out
}

func (l Layers[L]) of(s Stage) []L {
	switch s {
	case Repeats:
		return l.Repeats
	case Pins:
		return l.Pins
	case Hints:
		return l.Hints
	case Limits:
		return l.Limits
	case Declared:
		return l.Declared
	}
	return nil
}
