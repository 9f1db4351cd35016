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
)

// String returns the stage's name: "repeats", "limits" or "declared".
func (s Stage) String() string {
	switch s {
	case Repeats:
		return "repeats"
	case Limits:
		return "limits"
	case Declared:
		return "declared"
	}
	return "unknown"
}

// admission is the one order of the stages, outermost first; see the
// package documentation for why.
var admission = [...]Stage{Repeats, Limits, Declared}

// Admission returns the stages a call passes before its handler, outermost
// first. The slice is a fresh copy.
func Admission() []Stage { return append([]Stage(nil), admission[:]...) }

// Layers holds a consumer's layers for each stage, of whatever type it
// chains (an mcp-go middleware, a go-sdk middleware, a check function of
// the proxy). An empty stage is off.
type Layers[L any] struct {
	Repeats  []L
	Limits   []L
	Declared []L
}

// Ordered returns the layers in the admission order, outermost first, the
// layers of one stage in the order given.
func (l Layers[L]) Ordered() []L {
	out := make([]L, 0, len(l.Repeats)+len(l.Limits)+len(l.Declared))
	for _, s := range admission {
		out = append(out, l.of(s)...)
	}
	return out
}

func (l Layers[L]) of(s Stage) []L {
	switch s {
	case Repeats:
		return l.Repeats
	case Limits:
		return l.Limits
	case Declared:
		return l.Declared
	}
	return nil
}
