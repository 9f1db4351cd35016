package middleware

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
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
