package hints

import (
	"errors"
	"fmt"
)

// ReferenceError reports a hint that names a tool the server does not
// have. [CheckNames] returns one per problem, joined with [errors.Join].
type ReferenceError struct {
	// Rule is the tool the rule is for.
	Rule string
	// Tool is the tool that does not exist. It equals Rule when the rule
	// itself is for a tool the server does not have, so none of its hints
	// can ever apply.
	Tool string
}

// Error describes the dangling reference.
func (e *ReferenceError) Error() string {
	if e.Rule == e.Tool {
		return fmt.Sprintf("hints: rule for unknown tool %q never applies", e.Tool)
	}
	return fmt.Sprintf("hints: hints of tool %q name unknown tool %q", e.Rule, e.Tool)
}

// CheckNames reports every rule for a tool whose name is not in tools, and
// every tool that a hint names ([Call] steps and [Mentions]) and that is
// not in tools, as [*ReferenceError]s joined with [errors.Join]. It returns
// nil when there is none. Each SDK's front calls it with the names of the
// tools a server has.
func CheckNames[Req, Res any](tools []string, rules ...Rule[Req, Res]) error {
	have := make(map[string]bool, len(tools))
	for _, t := range tools {
		have[t] = true
	}
	var errs []error
	seen := map[ReferenceError]bool{}
	report := func(e ReferenceError) {
		if !seen[e] {
			seen[e] = true
			errs = append(errs, &e)
		}
	}
	for _, r := range rules {
		if !have[r.tool] {
			report(ReferenceError{Rule: r.tool, Tool: r.tool})
		}
		for _, ref := range r.References() {
			if !have[ref] {
				report(ReferenceError{Rule: r.tool, Tool: ref})
			}
		}
	}
	return errors.Join(errs...)
}
