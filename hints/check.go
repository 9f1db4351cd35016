package hints

import (
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ReferenceError reports a hint that names a tool the server does not
// have. [Check] returns one per problem, joined with [errors.Join].
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

// Check reports every rule for a tool that s does not have, and every
// tool that a hint names ([Call] steps and [Mentions]) and s does not
// have. It returns nil when there is none. Run it once the tools are
// registered, in a test or at startup:
//
//	if err := hints.Check(s, rules...); err != nil {
//		log.Fatal(err)
//	}
//
// Tools that hint functions name are only known to Check when the rule
// declares them with [Mentions].
func Check(s *server.MCPServer, rules ...Rule) error {
	var tools []mcp.Tool
	if s != nil {
		for _, st := range s.ListTools() {
			tools = append(tools, st.Tool)
		}
	}
	return CheckTools(tools, rules...)
}

// CheckTools is [Check] against a list of tools, such as a client's
// tools/list answer.
func CheckTools(tools []mcp.Tool, rules ...Rule) error {
	have := make(map[string]bool, len(tools))
	for _, t := range tools {
		have[t.Name] = true
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

// Check is [Check] for the registry's rules.
func (r *Registry) Check(s *server.MCPServer) error { return Check(s, r.rules...) }

// CheckTools is [CheckTools] for the registry's rules.
func (r *Registry) CheckTools(tools []mcp.Tool) error { return CheckTools(tools, r.rules...) }
