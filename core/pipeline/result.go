package pipeline

import (
	"maps"
	"strings"
	"sync"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// ErrorInput is what [BuildError] builds an error result from.
type ErrorInput struct {
	// Envelope is the failure, as a renderer rendered it.
	Envelope *envelope.Envelope
	// Renderer decides the toolFailure _meta ([envelope.WithToolFailureMeta]).
	Renderer *envelope.Renderer
	// Meta is the _meta of the result the error result is made from (the
	// handler's own error result, an upstream's), nil for none. It is not
	// modified.
	Meta map[string]any
	// DeclaresOutput: the tool declares an output schema, so the envelope
	// is not put in structured content.
	DeclaresOutput bool
	// Relay, when not nil, renders the toolFailure _meta of a result whose
	// Meta had one of its own and whose Renderer adds none: a relay (the
	// proxy) keeps the slot the upstream used, filled as the envelope says,
	// never as the upstream wrote it.
	Relay *envelope.Renderer
}

// ErrorShape is the SDK-neutral shape of an error result (isError: true).
type ErrorShape struct {
	// Text is the envelope's JSON, the result's first content item; the
	// consumer appends the non-text items of the result it was made from.
	Text string
	// Structured is the structured content: the envelope, or nil when the
	// tool declares an output schema.
	Structured *envelope.Envelope
	// Meta is the result's _meta: the input's without its toolFailure,
	// plus the renderer's own toolFailure if it adds one; nil for none. It
	// is a fresh map whenever it differs from the input's.
	Meta map[string]any
}

// BuildError builds the error result that carries in.Envelope.
func BuildError(in ErrorInput) ErrorShape {
	s := ErrorShape{Text: string(in.Envelope.Marshal())}
	if !in.DeclaresOutput {
		s.Structured = in.Envelope
	}
	meta, had := envelope.DropFailureMeta(in.Meta)
	failure, ok := in.Renderer.FailureMeta(in.Envelope)
	if !ok && had && in.Relay != nil {
		failure, ok = in.Relay.FailureMeta(in.Envelope)
	}
	if ok {
		out := make(map[string]any, len(meta)+1)
		maps.Copy(out, meta)
		out[envelope.ToolFailureMetaKey] = failure
		meta = out
	}
	s.Meta = meta
	return s
}

// JoinText joins the text of items, each read by text (false: not a text
// item), with a line break between texts, starting once a text was
// written: the one reading of a result's text, for classifying a
// handler's own error result.
func JoinText[T any](items []T, text func(T) (string, bool)) string {
	var b strings.Builder
	for _, it := range items {
		t, ok := text(it)
		if !ok {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t)
	}
	return b.String()
}

// Outputs remembers which tools declare an output schema, as the
// tools/list results a consumer sees say: a client can only validate
// structured content against a schema tools/list sent it. The zero value
// is empty and ready; it is safe for concurrent use.
type Outputs struct{ m sync.Map } // tool name -> bool

// Learn records whether the tool named name declares an output schema.
func (o *Outputs) Learn(name string, declares bool) { o.m.Store(name, declares) }

// Declares reports whether the tool named name was learned to declare an
// output schema.
func (o *Outputs) Declares(name string) bool {
	v, ok := o.m.Load(name)
	return ok && v.(bool)
}
