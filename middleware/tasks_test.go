package middleware_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// The secrets a failing task must never put on the wire.
const (
	taskDSN      = "postgres://app:s3cr3t@db/prod"
	taskPassword = "s3cr3t"
)

// taskSession is a registered client session that keeps every notification
// the server sends it, such as notifications/tasks/status.
type taskSession struct {
	id    string
	ch    chan mcp.JSONRPCNotification
	inits atomic.Bool
}

func (s *taskSession) SessionID() string                                   { return s.id }
func (s *taskSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.ch }
func (s *taskSession) Initialize()                                         { s.inits.Store(true) }
func (s *taskSession) Initialized() bool                                   { return s.inits.Load() }

// taskWire drives a server through HandleMessage in one session, the way a
// transport does, and returns what the client receives.
type taskWire struct {
	t    *testing.T
	s    *server.MCPServer
	ctx  context.Context
	sess *taskSession
	ids  atomic.Int64
}

func newTaskWire(t *testing.T, s *server.MCPServer) *taskWire {
	t.Helper()
	sess := &taskSession{id: "task-session", ch: make(chan mcp.JSONRPCNotification, 64)}
	require.NoError(t, s.RegisterSession(context.Background(), sess))
	t.Cleanup(func() { s.UnregisterSession(context.Background(), sess.id) })
	w := &taskWire{t: t, s: s, ctx: s.WithContext(context.Background(), sess), sess: sess}
	w.send("initialize", map[string]any{
		"protocolVersion": mcp.LATEST_PROTOCOL_VERSION,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "tasks_test", "version": "0.0.0"},
	})
	return w
}

func (w *taskWire) send(method string, params any) []byte {
	w.t.Helper()
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": w.ids.Add(1), "method": method, "params": params})
	require.NoError(w.t, err)
	resp := w.s.HandleMessage(w.ctx, req)
	require.NotNil(w.t, resp, method)
	raw, err := json.Marshal(resp)
	require.NoError(w.t, err)
	return raw
}

// runTask calls tool as a task and returns the raw tools/call, tasks/result
// and tasks/get responses and every status notification's raw params.
func (w *taskWire) runTask(tool string, args any) (created, result, get []byte, notes []string) {
	w.t.Helper()
	created = w.send("tools/call", map[string]any{"name": tool, "arguments": args, "task": map[string]any{"ttl": 60000}})
	var c struct {
		Result struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		} `json:"result"`
	}
	require.NoError(w.t, json.Unmarshal(created, &c))
	require.NotEmpty(w.t, c.Result.Task.TaskID, "no task handle in %s", created)
	id := map[string]any{"taskId": c.Result.Task.TaskID}
	result = w.send("tasks/result", id) // blocks until the task ends
	get = w.send("tasks/get", id)
	for {
		select {
		case n := <-w.sess.ch:
			raw, err := json.Marshal(n)
			require.NoError(w.t, err)
			notes = append(notes, string(raw))
			continue
		default:
		}
		break
	}
	return created, result, get, notes
}

// taskFailures are the task handlers a hostile test runs: a failure with a
// DSN in its text and a panic whose value carries it.
var taskFailures = map[string]func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error){
	"error": func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		return nil, errors.New("dial " + taskDSN + ": connection refused")
	},
	"panic": func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		panic("dial " + taskDSN + ": connection refused")
	},
}

// expectTaskEnvelope checks that a task's failure reached the client only
// as an envelope: in tasks/result, with no secret, no stack and no JSON-RPC
// error anywhere the client reads.
func expectTaskEnvelope(t *testing.T, result, get []byte, notes []string, code envelope.Code) {
	t.Helper()
	for _, raw := range append([]string{string(result), string(get)}, notes...) {
		assert.NotContains(t, raw, taskPassword, "secret on the wire: %s", raw)
		assert.NotContains(t, raw, "goroutine ", "stack on the wire: %s", raw)
		assert.NotContains(t, raw, ".go:", "source position on the wire: %s", raw)
	}
	var r struct {
		Result *json.RawMessage         `json:"result"`
		Error  *mcp.JSONRPCErrorDetails `json:"error"`
	}
	require.NoError(t, json.Unmarshal(result, &r))
	require.Nil(t, r.Error, "a task failure became a JSON-RPC error: %s", result)
	require.NotNil(t, r.Result)
	res, err := mcp.ParseCallToolResult(r.Result)
	require.NoError(t, err)
	env, ok := envelope.FromResult(res)
	require.True(t, ok, "tasks/result carries no envelope: %s", result)
	assert.Equal(t, code, env.ErrorType)
	assert.True(t, res.IsError)
}

// TestTaskToolFailuresReachTheClientOnlyAsEnvelopes is the hostile test of
// issue 34: a tool registered with AddTaskTool that fails or panics, under
// the one line, must not send its DSN or its stack through tasks/result,
// tasks/get or notifications/tasks/status.
func TestTaskToolFailuresReachTheClientOnlyAsEnvelopes(t *testing.T) {
	codes := map[string]envelope.Code{"error": envelope.InternalError, "panic": envelope.InternalError}
	for name, h := range taskFailures {
		t.Run(name, func(t *testing.T) {
			s := server.NewMCPServer("tasks", "1.0.0", server.WithTaskCapabilities(true, true, true))
			s.Use(middleware.Default()...)
			middleware.AddTaskTool(s, mcp.NewTool("db_export", mcp.WithString("table"), mcp.WithTaskSupport(mcp.TaskSupportRequired)), h)
			w := newTaskWire(t, s)
			_, result, get, notes := w.runTask("db_export", map[string]any{"table": "orders"})
			expectTaskEnvelope(t, result, get, notes, codes[name])
			assert.Contains(t, string(get), `"status":"completed"`, "an enveloped failure is a completed task: %s", get)
		})
	}
}

// TestPlainAddTaskToolIsNotReachedByUse documents why the extra line is
// needed: mcp-go calls an AddTaskTool handler without the middlewares
// given to Use, so its failure text and panic value reach the client. If
// this test fails, mcp-go now wraps task handlers and the README's extra
// line can go.
func TestPlainAddTaskToolIsNotReachedByUse(t *testing.T) {
	s := server.NewMCPServer("tasks", "1.0.0", server.WithTaskCapabilities(true, true, true))
	s.Use(middleware.Default()...)
	s.AddTaskTool(mcp.NewTool("db_export", mcp.WithTaskSupport(mcp.TaskSupportRequired)), taskFailures["panic"])
	w := newTaskWire(t, s)
	_, result, get, _ := w.runTask("db_export", nil)
	assert.True(t, strings.Contains(string(result)+string(get), taskPassword),
		"mcp-go now keeps a plain task tool's panic off the wire; drop middleware.AddTaskTool from the docs: %s %s", result, get)
}

// TestRegularToolsRunAsTasksAreGuardedByUse: a tool added with AddTool and
// mcp.WithTaskSupport runs through the middlewares given to Use when a
// client calls it as a task, so the one line covers it.
func TestRegularToolsRunAsTasksAreGuardedByUse(t *testing.T) {
	for _, support := range []mcp.TaskSupport{mcp.TaskSupportOptional, mcp.TaskSupportRequired} {
		for name, h := range taskFailures {
			t.Run(string(support)+"/"+name, func(t *testing.T) {
				s := server.NewMCPServer("tasks", "1.0.0", server.WithTaskCapabilities(true, true, true))
				s.Use(middleware.Default()...)
				s.AddTool(mcp.NewTool("db_export", mcp.WithTaskSupport(support)),
					func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						_, err := h(ctx, req)
						return nil, err
					})
				w := newTaskWire(t, s)
				_, result, get, notes := w.runTask("db_export", nil)
				expectTaskEnvelope(t, result, get, notes, envelope.InternalError)
			})
		}
	}
}

// TestTaskToolsAreValidatedLoggedAndAnswered: through AddTaskTool, a task
// tool's declared schema is enforced before the handler runs, its success
// reaches tasks/result unchanged, and the Logging layer records each run.
func TestTaskToolsAreValidatedLoggedAndAnswered(t *testing.T) {
	log := middlewaretest.NewLog(t)
	s := server.NewMCPServer("tasks", "1.0.0", server.WithTaskCapabilities(true, true, true))
	s.Use(middleware.Default(middleware.WithLogger(log.Logger()))...)
	var runs atomic.Int32
	middleware.AddTaskTool(s, mcp.NewTool("db_export", mcp.WithNumber("limit", mcp.Required(), mcp.Max(10))),
		func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
			runs.Add(1)
			return &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent("exported 3 rows")}}, nil
		})
	w := newTaskWire(t, s)

	_, result, _, _ := w.runTask("db_export", map[string]any{"limit": 99})
	expectTaskEnvelope(t, result, nil, nil, envelope.ValidationError)
	assert.Zero(t, runs.Load(), "the handler ran on arguments its schema refuses")

	_, result, get, _ := w.runTask("db_export", map[string]any{"limit": 3})
	assert.Contains(t, string(result), `"text":"exported 3 rows"`)
	assert.NotContains(t, string(result), `"isError":true`)
	assert.Contains(t, string(get), `"status":"completed"`)
	assert.Equal(t, int32(1), runs.Load())
	outcomes := map[string]int{}
	for _, r := range log.Records() {
		if r["msg"] == "mcpguard: tool call" && r["tool"] == "db_export" {
			outcomes[r["outcome"].(string)]++
		}
	}
	assert.Equal(t, map[string]int{"tool_error": 1, "success": 1}, outcomes, "one record per task run: %v", log.Records())
}

// TestAddTaskToolsKeepsTheToolsTaskSupport: AddTaskTools lists a tool that
// says nothing about tasks, or forbids them, as task-required (its handler
// only makes sense as a task), and keeps a tool's optional or required.
func TestAddTaskToolsKeepsTheToolsTaskSupport(t *testing.T) {
	s := server.NewMCPServer("tasks", "1.0.0", server.WithTaskCapabilities(true, true, true))
	s.Use(middleware.Default()...)
	h := taskFailures["panic"]
	middleware.AddTaskTools(s,
		server.ServerTaskTool{Tool: mcp.NewTool("unset"), Handler: h},
		server.ServerTaskTool{Tool: mcp.Tool{Name: "empty", Execution: &mcp.ToolExecution{}, InputSchema: mcp.ToolInputSchema{Type: "object"}}, Handler: h},
		server.ServerTaskTool{Tool: mcp.NewTool("forbidden", mcp.WithTaskSupport(mcp.TaskSupportForbidden)), Handler: h},
		server.ServerTaskTool{Tool: mcp.NewTool("optional", mcp.WithTaskSupport(mcp.TaskSupportOptional)), Handler: h},
		server.ServerTaskTool{Tool: mcp.NewTool("required", mcp.WithTaskSupport(mcp.TaskSupportRequired)), Handler: h},
	)
	got := map[string]string{}
	for _, raw := range middlewaretest.FromServer(t, s).ListTools() {
		var tool struct {
			Name      string `json:"name"`
			Execution struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		}
		require.NoError(t, json.Unmarshal(raw, &tool))
		got[tool.Name] = tool.Execution.TaskSupport
	}
	assert.Equal(t, map[string]string{
		"unset": "required", "empty": "required", "forbidden": "required",
		"optional": "optional", "required": "required",
	}, got)
}

// TestPlainAddTaskToolIsLogged: a task tool added with s.AddTaskTool runs
// outside the chain; the Logging layer says so once, at the first call the
// chain sees on that server, naming it and the fix. A tool registered
// with middleware.AddTaskTool, or a regular one, is not named.
func TestPlainAddTaskToolIsLogged(t *testing.T) {
	log := middlewaretest.NewLog(t)
	s := server.NewMCPServer("tasks", "1.0.0", server.WithTaskCapabilities(true, true, true))
	s.Use(middleware.Default(middleware.WithLogger(log.Logger()))...)
	s.AddTaskTool(mcp.NewTool("db_export", mcp.WithTaskSupport(mcp.TaskSupportRequired)), taskFailures["panic"])
	middleware.AddTaskTool(s, mcp.NewTool("guarded_export"), taskFailures["panic"])
	s.AddTool(mcp.NewTool("ping"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("pong"), nil
	})
	w := newTaskWire(t, s)
	w.send("tools/call", map[string]any{"name": "ping"})
	w.send("tools/call", map[string]any{"name": "ping"})
	w.runTask("guarded_export", nil)
	var warned []map[string]any
	for _, r := range log.Records() {
		if r["msg"] == middleware.TaskToolsLogMessage {
			warned = append(warned, r)
		}
	}
	require.Len(t, warned, 1, "%v", log.Records())
	assert.Equal(t, "WARN", warned[0]["level"])
	assert.Equal(t, []any{"db_export"}, warned[0]["tools"])
	assert.Contains(t, warned[0]["hint"], "middleware.AddTaskTool")

	clean := middlewaretest.NewLog(t)
	s2 := server.NewMCPServer("tasks", "1.0.0", server.WithTaskCapabilities(true, true, true))
	s2.Use(middleware.Default(middleware.WithLogger(clean.Logger()))...)
	middleware.AddTaskTool(s2, mcp.NewTool("guarded_export"), taskFailures["panic"])
	newTaskWire(t, s2).runTask("guarded_export", nil)
	for _, r := range clean.Records() {
		assert.NotEqual(t, middleware.TaskToolsLogMessage, r["msg"], "a guarded task tool was named: %v", r)
	}
}

// One chain on two servers names each server's plain task tools once,
// each in a record of its own, reading every page of a paginated
// tools/list.
func TestPlainAddTaskToolIsLoggedPerServerAcrossPages(t *testing.T) {
	log := middlewaretest.NewLog(t)
	chain := middleware.Default(middleware.WithLogger(log.Logger()))
	ping := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("pong"), nil
	}
	s1 := server.NewMCPServer("one", "1.0.0", server.WithTaskCapabilities(true, true, true))
	s1.Use(chain...)
	s1.AddTaskTool(mcp.NewTool("a_export", mcp.WithTaskSupport(mcp.TaskSupportRequired)), taskFailures["panic"])
	s1.AddTool(mcp.NewTool("ping"), ping)
	s2 := server.NewMCPServer("two", "1.0.0", server.WithTaskCapabilities(true, true, true), server.WithPaginationLimit(2))
	s2.Use(chain...)
	for _, name := range []string{"a_ping", "b_ping", "c_ping", "ping"} {
		s2.AddTool(mcp.NewTool(name), ping)
	}
	s2.AddTaskTool(mcp.NewTool("z_export", mcp.WithTaskSupport(mcp.TaskSupportRequired)), taskFailures["panic"])
	w1, w2 := newTaskWire(t, s1), newTaskWire(t, s2)
	w1.send("tools/call", map[string]any{"name": "ping"})
	w2.send("tools/call", map[string]any{"name": "ping"})
	w1.send("tools/call", map[string]any{"name": "ping"})
	var tools [][]any
	for _, r := range log.Records() {
		if r["msg"] == middleware.TaskToolsLogMessage {
			tools = append(tools, r["tools"].([]any))
		}
	}
	assert.Equal(t, [][]any{{"a_export"}, {"z_export"}}, tools, "%v", log.Records())
}
