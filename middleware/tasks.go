package middleware

import (
	"context"
	"encoding/json"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// AddTaskTool registers a task tool on s so that the middlewares given to
// s.Use guard it like any tool. Use it in place of s.AddTaskTool:
//
//	s.Use(middleware.Default()...)
//	middleware.AddTaskTool(s, tool, exportHandler) // not s.AddTaskTool
//
// mcp-go v1.2.1 runs a handler added with s.AddTaskTool without the
// middlewares of s.Use: its error text and panic value reach the client
// through tasks/result, tasks/get and notifications/tasks/status. mcp-go
// does run the middlewares for a regular tool that declares task support,
// so AddTaskTool registers the handler as one: the tool keeps its
// execution.taskSupport, or gets "required" when it declares none (the
// handler of a task tool is meant to run as a task). A failure then reaches
// the client as an envelope in tasks/result, with the task completed and
// no statusMessage; the limits bound the task's real run.
//
// The handler's CreateTaskResult is read for its result (content,
// structuredContent, isError, _meta), as mcp-go's tasks/result reads it;
// its Task member is ignored there too.
func AddTaskTool(s *server.MCPServer, tool mcp.Tool, h server.TaskToolHandlerFunc) {
	AddTaskTools(s, server.ServerTaskTool{Tool: tool, Handler: h})
}

// AddTaskTools is [AddTaskTool] for several tools at once, in place of
// s.AddTaskTools.
func AddTaskTools(s *server.MCPServer, tools ...server.ServerTaskTool) {
	regular := make([]server.ServerTool, 0, len(tools))
	for _, t := range tools {
		tool := t.Tool
		if tool.Execution == nil || (tool.Execution.TaskSupport != mcp.TaskSupportOptional &&
			tool.Execution.TaskSupport != mcp.TaskSupportRequired) {
			exec := mcp.ToolExecution{}
			if tool.Execution != nil {
				exec = *tool.Execution
			}
			exec.TaskSupport = mcp.TaskSupportRequired
			tool.Execution = &exec
		}
		regular = append(regular, server.ServerTool{Tool: tool, Handler: TaskHandler(t.Handler)})
	}
	s.AddTools(regular...)
}

// TaskHandler adapts a task tool's handler to a tool handler, for servers
// that register tools by themselves (s.AddTool with
// mcp.WithTaskSupport). The result carries what mcp-go's tasks/result
// would send of the handler's CreateTaskResult.
func TaskHandler(h server.TaskToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		created, err := h(ctx, req)
		if err != nil || created == nil {
			return nil, err
		}
		return &mcp.CallToolResult{
			Result:            created.Result,
			Content:           created.Content,
			StructuredContent: created.StructuredContent,
			IsError:           created.IsError,
		}, nil
	}
}

// TaskToolsLogMessage is the message of the record [Logging] writes, once
// per server, when that server has task tools added with s.AddTaskTool,
// which mcp-go runs outside the chain: their names are under "tools".
const TaskToolsLogMessage = "mcpguard: task tools run outside the chain"

// taskToolsHint is that record's hint.
const taskToolsHint = "mcp-go runs a handler added with s.AddTaskTool without the middlewares of s.Use: its errors and panics " +
	"reach the client unredacted, without envelope, limits or log record; register it with middleware.AddTaskTool instead"

// unguardedTasks looks, once per server, for task tools that run outside
// the chain. mcp-go names its task tools nowhere but in tools/list, so the
// Logging layer lists the tools of the server it serves in process at the
// first call it sees there (the only place the chain meets the server):
// a listed tool that is neither a regular one nor the session's is one.
// A server whose only tools are such task tools is never seen.
type unguardedTasks struct {
	// last is the server looked at last: a hit skips the map.
	last atomic.Pointer[weak.Pointer[server.MCPServer]]
	seen sync.Map // weak.Pointer[server.MCPServer] -> struct{}
}

// check logs the task tools of the server in ctx that run outside the
// chain, the first time it sees that server.
func (u *unguardedTasks) check(ctx context.Context, logger *slog.Logger) {
	s := server.ServerFromContext(ctx)
	if s == nil {
		return
	}
	if last := u.last.Load(); last != nil && last.Value() == s {
		return // weak: a collected server reads nil, never a reused address
	}
	wp := weak.Make(s)
	u.last.Store(&wp)
	if _, done := u.seen.LoadOrStore(wp, struct{}{}); done {
		return
	}
	runtime.AddCleanup(s, func(wp weak.Pointer[server.MCPServer]) { u.seen.Delete(wp) }, wp)
	var names []string
	safe.Call(func() { names = plainTaskTools(ctx, s) }) // a server's hook that panics fails nothing
	if len(names) > 0 {
		safe.Log(ctx, logger, slog.LevelWarn, TaskToolsLogMessage,
			slog.Any("tools", names), slog.String(logkey.Hint, taskToolsHint))
	}
}

// maxTaskToolPages bounds the pages of tools/list plainTaskTools reads.
const maxTaskToolPages = 100

// plainTaskTools returns the names of the tools s lists in ctx that are
// neither regular tools (AddTool, middleware.AddTaskTool) nor the
// session's own: the task tools added with s.AddTaskTool.
func plainTaskTools(ctx context.Context, s *server.MCPServer) []string {
	var sessionTools map[string]server.ServerTool
	if st, ok := server.ClientSessionFromContext(ctx).(server.SessionWithTools); ok {
		sessionTools = st.GetSessionTools()
	}
	var names []string
	cursor := mcp.Cursor("")
	for range maxTaskToolPages {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "mcpguard-task-tools", "method": "tools/list", "params": params})
		resp, ok := s.HandleMessage(ctx, req).(mcp.JSONRPCResponse)
		if !ok {
			break
		}
		list, ok := resp.Result.(mcp.ListToolsResult)
		if !ok {
			break
		}
		for _, t := range list.Tools {
			if _, own := sessionTools[t.Name]; !own && s.GetTool(t.Name) == nil {
				names = append(names, t.Name)
			}
		}
		if cursor = list.NextCursor; cursor == "" {
			break
		}
	}
	slices.Sort(names)
	return names
}
