package limit

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	methodCallTool  = "tools/call"
	methodListTools = "tools/list"
)

// toolCall is what a layer does with one tools/call.
type toolCall func(ctx context.Context, req *mcp.CallToolRequest, next mcp.MethodHandler) (mcp.Result, error)

// onToolCalls makes a go-sdk middleware that hands tools/call requests to
// call and passes every other method through untouched.
func onToolCalls(call toolCall) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == methodCallTool {
				if r, ok := req.(*mcp.CallToolRequest); ok {
					return call(ctx, r, next)
				}
			}
			return next(ctx, method, req)
		}
	}
}

// toolName is the name a call asks for, "" when it names none.
func toolName(req *mcp.CallToolRequest) string {
	if req == nil || req.Params == nil {
		return ""
	}
	return req.Params.Name
}

// tools are the names a layer has seen the server serve. go-sdk runs
// receiving middleware before it looks the tool up, so a name in a request
// may be one the client invented; per-tool state for it would be memory
// the client controls. A name is known once a tools/list result passing
// through the layer lists it, or once a call of it succeeded: go-sdk
// answers an unknown tool with a JSON-RPC error, and a refusal or a
// timeout is an error result, so neither teaches a name. The set is
// bounded by the tools the server ever had.
type tools struct{ m sync.Map } // name -> struct{}

// of returns name if the server has it, else "": the state shared by the
// names not yet seen.
func (t *tools) of(name string) string {
	if _, ok := t.m.Load(name); ok {
		return name
	}
	return ""
}

// served records name, not known yet, after a call of it was answered
// with res.
func (t *tools) served(name string, res mcp.Result) {
	if r, ok := res.(*mcp.CallToolResult); ok && r != nil && !r.IsError && name != "" {
		t.m.Store(name, struct{}{})
	}
}

// listed records the tools a tools/list result names.
func (t *tools) listed(res mcp.Result) {
	l, ok := res.(*mcp.ListToolsResult)
	if !ok || l == nil {
		return
	}
	for _, tool := range l.Tools {
		if tool != nil && tool.Name != "" {
			t.m.Store(tool.Name, struct{}{})
		}
	}
}

// perToolCalls is onToolCalls for a layer with per-tool state: call gets
// the tool whose state to use ("" for names not known yet), and the layer
// learns names from tools/list results and served calls.
func perToolCalls(call func(ctx context.Context, tool string, req *mcp.CallToolRequest, next mcp.MethodHandler) (mcp.Result, error)) mcp.Middleware {
	var known tools
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case methodCallTool:
				if r, ok := req.(*mcp.CallToolRequest); ok {
					name := toolName(r)
					tool := known.of(name)
					res, err := call(ctx, tool, r, next)
					if tool == "" {
						known.served(name, res)
					}
					return res, err
				}
			case methodListTools:
				res, err := next(ctx, method, req)
				known.listed(res)
				return res, err
			}
			return next(ctx, method, req)
		}
	}
}
