package hints

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	core "github.com/mcpguard/mcpguard/core/hints"
)

// ReferenceError reports a hint that names a tool the server does not
// have. [Check] returns one per problem, joined with [errors.Join]. Rule
// is the tool the rule is for; Tool the tool that does not exist, equal to
// Rule when the rule itself is for a tool the server does not have, so
// none of its hints can ever apply.
type ReferenceError = core.ReferenceError

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
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return core.CheckNames(names, rules...)
}

// Check is [Check] for the registry's rules.
func (r *Registry) Check(s *server.MCPServer) error { return Check(s, r.c.Rules()...) }

// CheckTools is [CheckTools] for the registry's rules.
func (r *Registry) CheckTools(tools []mcp.Tool) error { return CheckTools(tools, r.c.Rules()...) }
