package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/hints"
)

// CheckTools reports every rule for a tool that is not in tools, and every
// tool that a hint names ([Call] steps and [Mentions]) and that is not in
// tools, as [*ReferenceError]s joined with errors.Join; nil when there is
// none. tools is what a server has, such as a client's tools/list answer.
// Tools that hint functions name are only known to it when the rule
// declares them with [Mentions].
func CheckTools(tools []*mcp.Tool, rules ...Rule) error {
	return hints.CheckNames(toolNames(tools), rules...)
}

// Check is [CheckTools] against the tools s has once they are registered,
// in a test or at startup:
//
//	if err := gosdk.Check(ctx, s, rules...); err != nil {
//		log.Fatal(err)
//	}
//
// go-sdk's Server does not list its tools to Go code, so Check asks it as
// a client does: it connects an in-memory client session, lists the tools
// and closes the session. The server's receiving middleware and session
// hooks see that session as they see any other. It returns the session's
// error when the tools cannot be listed.
func Check(ctx context.Context, s *mcp.Server, rules ...Rule) error {
	tools, err := listTools(ctx, s)
	if err != nil {
		return err
	}
	return CheckTools(tools, rules...)
}

// Check is [Check] for the registry's rules.
func (r *HintRegistry) Check(ctx context.Context, s *mcp.Server) error {
	return Check(ctx, s, r.c.Rules()...)
}

// CheckTools is [CheckTools] for the registry's rules.
func (r *HintRegistry) CheckTools(tools []*mcp.Tool) error { return CheckTools(tools, r.c.Rules()...) }

func listTools(ctx context.Context, s *mcp.Server) (_ []*mcp.Tool, err error) {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := ss.Close(); err == nil {
			err = cerr
		}
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpguard-check", Version: "v0.0.0"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}
