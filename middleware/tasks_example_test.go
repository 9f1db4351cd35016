package middleware_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/middleware"
)

// A task tool registered with AddTaskTool runs through the chain of
// s.Use: its failure reaches tasks/result as an envelope, with no DSN.
func ExampleAddTaskTool() {
	s := server.NewMCPServer("warehouse", "1.0.0", server.WithTaskCapabilities(true, true, true))
	s.Use(middleware.Default()...)
	middleware.AddTaskTool(s, mcp.NewTool("warehouse_export", mcp.WithTaskSupport(mcp.TaskSupportRequired)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
			return nil, errors.New("dial postgres://app:s3cr3t@db/prod: connection refused")
		})

	send := func(method string, params any) []byte {
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
		raw, _ := json.Marshal(s.HandleMessage(context.Background(), req))
		return raw
	}
	var created struct {
		Result struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		} `json:"result"`
	}
	_ = json.Unmarshal(send("tools/call", map[string]any{"name": "warehouse_export", "task": map[string]any{"ttl": 60000}}), &created)
	result := send("tasks/result", map[string]any{"taskId": created.Result.Task.TaskID})

	var answer struct {
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				ErrorType string `json:"error_type"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	_ = json.Unmarshal(result, &answer)
	fmt.Println(answer.Result.IsError, answer.Result.StructuredContent.ErrorType)
	fmt.Println(strings.Contains(string(result), "s3cr3t"))
	// Output:
	// true internal_error
	// false
}
