package envelope

import (
	"fmt"
	"maps"
	"strconv"

	"github.com/mcpguard/mcpguard/core/redact"
)

// A handler that relays an upstream service's result relays what that
// service wrote, which is not this server's word: an envelope in its text
// (see [WithTrustedEnvelopes]), its fields, and a toolFailure _meta. What
// follows bounds and cleans them as this server's own are.

// MaxFieldErrors bounds the field errors one validation_error lists: the
// first MaxFieldErrors, then one entry with rule "more" whose param says
// how many more there are ([MoreFields]). core/validate lists violations
// so, and an envelope a handler returned as text is cut to the same shape.
const MaxFieldErrors = 20

// Bounds on the text of one field error of an envelope a handler returned
// as text, in bytes after redaction, and on its allowed values.
const (
	maxFieldMessageBytes = 1024
	maxFieldTextBytes    = 256
	maxAllowedValues     = 32
)

// MoreFields returns the entry that ends a list of field errors cut at
// [MaxFieldErrors], counting the n violations left out.
func MoreFields(n int) FieldError {
	return FieldError{
		Rule: "more", Param: strconv.Itoa(n),
		Message: moreMessage(n),
	}
}

func moreMessage(n int) string {
	if n == 1 {
		return "1 more invalid argument is not listed; fix these first"
	}
	return fmt.Sprintf("%d more invalid arguments are not listed; fix these first", n)
}

// boundFields returns the fields of an envelope a handler returned as
// text, capped at MaxFieldErrors and a "more" entry (a relayed list that
// already ends in one keeps it), each string redacted with red and then
// bounded, so that neither their number nor their text is the handler's
// to choose.
func boundFields(red *redact.Redactor, fs []FieldError) []FieldError {
	n := min(len(fs), MaxFieldErrors)
	if len(fs) == MaxFieldErrors+1 && fs[MaxFieldErrors].Rule == "more" {
		n = len(fs)
	}
	out := make([]FieldError, 0, n+1)
	for _, f := range fs[:n] {
		allowed := f.Allowed[:min(len(f.Allowed), maxAllowedValues)]
		b := FieldError{
			Field:      bounded(red, f.Field, maxFieldTextBytes),
			Rule:       bounded(red, f.Rule, maxFieldTextBytes),
			Param:      bounded(red, f.Param, maxFieldTextBytes),
			Suggestion: bounded(red, f.Suggestion, maxFieldTextBytes),
			Message:    bounded(red, f.Message, maxFieldMessageBytes),
		}
		for _, a := range allowed {
			b.Allowed = append(b.Allowed, bounded(red, a, maxFieldTextBytes))
		}
		out = append(out, b)
	}
	if more := len(fs) - n; more > 0 {
		out = append(out, MoreFields(more))
	}
	return out
}

// DropFailureMeta returns meta without [ToolFailureMetaKey], as a copy,
// and true, when meta holds it; meta itself and false otherwise. A
// toolFailure _meta in a handler's result (an upstream service's, relayed)
// would give the agent an agentGuidance, a retryable and a correlationId
// that contradict the envelope: each front drops it from every result,
// failures and successes alike, and adds its own only with
// [WithToolFailureMeta]. meta is never modified.
func DropFailureMeta(meta map[string]any) (map[string]any, bool) {
	if _, ok := meta[ToolFailureMetaKey]; !ok {
		return meta, false
	}
	out := maps.Clone(meta)
	delete(out, ToolFailureMetaKey)
	return out, true
}
