package pipeline

// Stage is one step of a tool call on its way to its handler and back.
type Stage uint8

// The stages, in no particular order; [Order] gives the order.
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
	// Log writes the one record (and span) of what the client received.
	Log
	// Recover turns a panic anywhere inside into an internal_error
	// envelope.
	Recover
	// Redact scrubs every text position of an error result (and, when
	// configured, of a success) on its way out.
	Redact
	// Render turns a Go error, a handler's own error result and a missing
	// result into the error result that carries an envelope.
	Render
	// Seal seals every requestState handed out and opens every echo
	// (core/seal); a call echoing one it cannot open is refused.
	Seal
)

var stageNames = [...]string{
	Repeats: "repeats", Limits: "limits", Declared: "declared", Hints: "hints", Pins: "pins",
	Log: "log", Recover: "recover", Redact: "redact", Render: "render", Seal: "seal",
}

// String returns the stage's name, as in the package documentation:
// "log", "recover", "repeats", "redact", "render", "pins", "seal",
// "hints", "limits" or "declared".
func (s Stage) String() string {
	if int(s) < len(stageNames) && stageNames[s] != "" {
		return stageNames[s]
	}
	return "unknown"
}

// order is the one order of the stages, outermost first; see the package
// documentation for why.
var order = [...]Stage{Log, Recover, Repeats, Redact, Render, Pins, Seal, Hints, Limits, Declared}

// Order returns every stage of a call, outermost first. The slice is a
// fresh copy.
func Order() []Stage { return append([]Stage(nil), order[:]...) }

// Admission returns the stages that can refuse a call before its handler
// runs, and the hints that join their refusals, outermost first: [Order]
// from [Repeats] on, without the stages that only shape an answer
// (redact, render) or open what the call echoes (seal). The slice is a
// fresh copy.
func Admission() []Stage {
	var out []Stage
	for _, s := range order {
		switch s {
		case Repeats, Pins, Hints, Limits, Declared:
			out = append(out, s)
		}
	}
	return out
}

// Hinted reports whether a call that s refuses gets its tool's error
// hints, as a failure of its handler does: whether s runs inside [Hints]
// in [Order]. A limit's and the declared check's refusals do (the step a
// user wrote for the tool's validation_error is for any of its
// validation errors); the repeated-failure guard's and the pins' do not
// (the call the guard holds back quotes its last failure's steps, which
// carried them; a tool nobody approved gets none of the steps written for
// it). A consumer that answers a refusal itself, rather than through a
// chain of layers in [Layers.Ordered] order (mcpguard-proxy), asks this.
func (s Stage) Hinted() bool {
	inside := false
	for _, a := range order {
		if a == s {
			return inside
		}
		inside = inside || a == Hints
	}
	return false // an unknown stage
}

// Layers holds a consumer's layers for each stage, of whatever type it
// chains (an mcp-go middleware, a go-sdk middleware, a check function of
// the proxy). An empty stage is off, or is one the consumer runs in a
// step of its own (the go-sdk front's outer steps are one function).
type Layers[L any] struct {
	Log      []L
	Recover  []L
	Repeats  []L
	Redact   []L
	Render   []L
	Pins     []L
	Seal     []L
	Hints    []L
	Limits   []L
	Declared []L
}

// Ordered returns the layers in [Order], outermost first, the layers of
// one stage in the order given.
func (l Layers[L]) Ordered() []L {
	var out []L // built once per chain: no capacity to compute
	for _, s := range order {
		out = append(out, *l.of(s)...)
	}
	return out
}

// Add appends layers to stage s's; it panics on an unknown stage.
func (l *Layers[L]) Add(s Stage, layers ...L) {
	p := l.of(s)
	if p == nil {
		panic("pipeline: Layers.Add to an unknown stage")
	}
	*p = append(*p, layers...)
}

func (l *Layers[L]) of(s Stage) *[]L {
	switch s {
	case Log:
		return &l.Log
	case Recover:
		return &l.Recover
	case Repeats:
		return &l.Repeats
	case Redact:
		return &l.Redact
	case Render:
		return &l.Render
	case Pins:
		return &l.Pins
	case Seal:
		return &l.Seal
	case Hints:
		return &l.Hints
	case Limits:
		return &l.Limits
	case Declared:
		return &l.Declared
	}
	return nil
}
