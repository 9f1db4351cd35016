package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxListPages bounds the tools/list pages a layer asks for on its own.
const maxListPages = 100

// listPages asks next (the layers inside, and go-sdk's own handler) for
// every page of the server's tools on session ss, as a client's tools/list
// would, and hands each page to page. It reports whether every page came;
// at most maxListPages are asked for, and none without a session: a
// handler called directly (gosdk.WrapTool in a test) has no server behind
// it to list. The hints layer's reference check and the declared-schema
// check both learn the server's tools so.
func listPages(ctx context.Context, ss *mcp.ServerSession, next mcp.MethodHandler, page func(*mcp.ListToolsResult)) bool {
	if ss == nil {
		return false
	}
	cursor := ""
	for range maxListPages {
		res, err := next(ctx, methodListTools, &mcp.ListToolsRequest{Session: ss, Params: &mcp.ListToolsParams{Cursor: cursor}})
		l, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok || l == nil {
			return false
		}
		page(l)
		if cursor = l.NextCursor; cursor == "" {
			return true
		}
	}
	return false
}

// currentTool is the definition of the tool named name that go-sdk holds
// now (nil: none), and whether the tools could be listed to find it, as
// listPages lists them. Within one tools/call of the Middleware the tools
// are listed once, for the tool called, whichever step asks first (the
// pins, the declared check).
func currentTool(ctx context.Context, ss *mcp.ServerSession, next mcp.MethodHandler, name string) (*mcp.Tool, bool) {
	c := stateOf(ctx)
	if c == nil || c.req == nil || c.req.Params == nil || c.req.Params.Name != name || c.req.Session != ss {
		return listTool(ctx, ss, next, name)
	}
	c.toolMu.Lock()
	defer c.toolMu.Unlock()
	if !c.toolLooked {
		c.tool, c.toolListed = listTool(ctx, ss, next, name)
		c.toolLooked = true
	}
	return c.tool, c.toolListed
}

func listTool(ctx context.Context, ss *mcp.ServerSession, next mcp.MethodHandler, name string) (*mcp.Tool, bool) {
	var def *mcp.Tool
	listed := listPages(ctx, ss, next, func(res *mcp.ListToolsResult) {
		for _, t := range res.Tools {
			if def == nil && t != nil && t.Name == name {
				def = t
			}
		}
	})
	return def, listed
}

// unknownTool reports whether req calls a tool the server's tools/list,
// as raw lists it, does not name: the listing the declared check and the
// pins make for the call anyway (currentTool), so a known tool's call
// costs nothing more. A call without a session, or whose tools could not
// all be listed, is not taken for unknown.
func unknownTool(ctx context.Context, req *mcp.CallToolRequest, raw mcp.MethodHandler) bool {
	if req.Params == nil {
		return false
	}
	def, listed := currentTool(ctx, req.Session, raw, req.Params.Name)
	return listed && def == nil
}
