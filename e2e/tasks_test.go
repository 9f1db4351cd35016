package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/middleware"
)

// taskServerEnv makes the test binary, started as a child, serve
// taskServer over stdio instead of running tests: the proxy's stdio
// upstream.
const taskServerEnv = "MCPGUARD_E2E_TASK_SERVER"

func init() {
	if os.Getenv(taskServerEnv) == "1" {
		if err := server.ServeStdio(taskServer()); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// The secret a failing task of taskServer puts in its error and panic.
const taskSecret = "s3cr3t"

// taskServer is a plain mcp-go server, no mcpguard, whose task tools fail
// with a DSN in their text (db_export), panic with it (db_panic) or
// succeed (db_count): the upstream the proxy must make safe.
func taskServer() *server.MCPServer {
	s := server.NewMCPServer("tasks", "1.0.0", server.WithTaskCapabilities(true, true, true), server.WithElicitation())
	s.AddTool(mcp.NewTool("deploy", mcp.WithString("environment", mcp.Required(), mcp.Enum("staging", "production"))), deployUpstream)
	task := func(name string) mcp.Tool {
		return mcp.NewTool(name, mcp.WithString("table"), mcp.WithTaskSupport(mcp.TaskSupportRequired))
	}
	s.AddTaskTool(task("db_export"), func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		return nil, errors.New("dial postgres://app:" + taskSecret + "@db/prod: connection refused")
	})
	s.AddTaskTool(task("db_panic"), func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		panic("dial postgres://app:" + taskSecret + "@db/prod: connection refused")
	})
	s.AddTaskTool(task("db_count"), func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		return &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent("3 rows")}}, nil
	})
	return s
}

// taskClient is an mcp-go client that sends raw requests and keeps every
// notification, to read exactly what reaches it.
type taskClient struct {
	t     *testing.T
	c     *client.Client
	ids   atomic.Int64
	mu    sync.Mutex
	notes []string
}

func newTaskClient(t *testing.T, c *client.Client) *taskClient {
	t.Helper()
	tc := &taskClient{t: t, c: c}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("starting the client: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		raw, _ := json.Marshal(n)
		tc.mu.Lock()
		tc.notes = append(tc.notes, string(raw))
		tc.mu.Unlock()
	})
	req := mcp.InitializeRequest{}
	// Tasks are a 2025-11-25 feature in mcp-go v1.2.1: on 2026-07-28
	// (stateless, _meta on every request) it refuses tasks/result.
	req.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	req.Params.ClientInfo = mcp.Implementation{Name: "e2e-tasks", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return tc
}

// send sends one request and returns the response as the client read it.
func (tc *taskClient) send(method string, params any) string {
	tc.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := tc.c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(1000 + tc.ids.Add(1)), Method: method, Params: params,
	})
	if err != nil {
		tc.t.Fatalf("%s: %v", method, err)
	}
	raw, _ := json.Marshal(resp)
	return string(raw)
}

// runTask calls tool as a task and returns the answers to tools/call,
// tasks/result and tasks/get.
func (tc *taskClient) runTask(tool string) (created, result, get string) {
	tc.t.Helper()
	created = tc.send("tools/call", map[string]any{"name": tool, "arguments": map[string]any{"table": "orders"}, "task": map[string]any{"ttl": 60000}})
	var c struct {
		Result struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		} `json:"result"`
	}
	if json.Unmarshal([]byte(created), &c) != nil || c.Result.Task.TaskID == "" {
		tc.t.Fatalf("no task handle: %s", created)
	}
	id := map[string]any{"taskId": c.Result.Task.TaskID}
	result = tc.send("tasks/result", id)
	get = tc.send("tasks/get", id)
	return created, result, get
}

func (tc *taskClient) notifications() []string {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return append([]string(nil), tc.notes...)
}

// TestProxyTaskResults: through mcpguard-proxy, over stdio and HTTP, in
// front of a plain mcp-go server whose task tools fail and panic with a
// DSN, the client reads the tools' failures only as envelopes in
// tasks/result (under the tool's name), a failed task's statusMessage
// only as the proxy's fixed text in tasks/get and in
// notifications/tasks/status, and a successful task's result unchanged.
func TestProxyTaskResults(t *testing.T) {
	t.Parallel()
	proxy := proxyBin(t)
	upstream := httptest.NewServer(server.NewStreamableHTTPServer(taskServer()))
	t.Cleanup(upstream.Close)
	for _, tr := range []struct {
		name string
		dial func(t *testing.T) *client.Client
	}{
		{"stdio", func(t *testing.T) *client.Client {
			self, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			c, err := client.NewStdioMCPClientWithOptions(proxy, []string{taskServerEnv + "=1"}, []string{"--", self})
			if err != nil {
				t.Fatal(err)
			}
			return c
		}},
		{"http", func(t *testing.T) *client.Client {
			c, err := client.NewStreamableHttpClient(startProxy(t, proxy, upstream.URL+"/mcp"))
			if err != nil {
				t.Fatal(err)
			}
			return c
		}},
	} {
		t.Run(tr.name, func(t *testing.T) {
			tc := newTaskClient(t, tr.dial(t))
			for _, tool := range []string{"db_export", "db_panic"} {
				_, result, get := tc.runTask(tool)
				for _, raw := range []string{result, get} {
					if strings.Contains(raw, taskSecret) {
						t.Errorf("%s: the secret reached the client: %s", tool, raw)
					}
				}
				env := taskEnvelope(t, result)
				if env["tool"] != tool || env["error_type"] == nil || env["success"] != false {
					t.Errorf("%s: tasks/result's envelope %v, want one for the tool", tool, env)
				}
				if !strings.Contains(result, `"io.modelcontextprotocol/related-task"`) {
					t.Errorf("%s: tasks/result does not name its task: %s", tool, result)
				}
				if !strings.Contains(get, `"status":"failed"`) || !strings.Contains(get, "tasks/result answers") {
					t.Errorf("%s: tasks/get %s, want the failed status with the proxy's text", tool, get)
				}
			}
			_, result, _ := tc.runTask("db_count")
			if !strings.Contains(result, `"text":"3 rows"`) || strings.Contains(result, `"isError":true`) {
				t.Errorf("a successful task's result changed: %s", result)
			}
			notes := tc.notifications()
			failed := 0
			for _, n := range notes {
				if strings.Contains(n, taskSecret) {
					t.Errorf("the secret reached the client in a notification: %s", n)
				}
				if strings.Contains(n, "notifications/tasks/status") && strings.Contains(n, `"failed"`) {
					failed++
				}
			}
			if tr.name == "stdio" && failed != 2 {
				t.Errorf("want 2 failed status notifications over stdio, got %d: %v", failed, notes)
			}
		})
	}
}

// taskEnvelope decodes the envelope of a tasks/result answer.
func taskEnvelope(t *testing.T, raw string) map[string]any {
	t.Helper()
	var resp struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(raw), &resp); err != nil || !resp.Result.IsError || len(resp.Result.Content) == 0 {
		t.Fatalf("tasks/result is not an isError result: %s", raw)
	}
	var env map[string]any
	if err := json.Unmarshal([]byte(resp.Result.Content[0].Text), &env); err != nil {
		t.Fatalf("tasks/result's first item is not an envelope: %s", raw)
	}
	return env
}

// guardedTaskServer is taskServer's task tools on mcp-go behind the one
// line, registered with middleware.AddTaskTool so that Use reaches them.
func guardedTaskServer() *server.MCPServer {
	s := server.NewMCPServer("tasks", "1.0.0", server.WithTaskCapabilities(true, true, true))
	s.Use(middleware.Default()...)
	task := func(name string) mcp.Tool {
		return mcp.NewTool(name, mcp.WithString("table"), mcp.WithTaskSupport(mcp.TaskSupportRequired))
	}
	middleware.AddTaskTool(s, task("db_panic"), func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		panic("dial postgres://app:" + taskSecret + "@db/prod: connection refused")
	})
	middleware.AddTaskTool(s, task("db_count"), func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		return &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent("3 rows")}}, nil
	})
	return s
}

// taskAnswer is an answer to tasks/result as the client decodes it, the
// envelope in its text decoded too, with what differs between two runs
// of one task (its id, a fresh incident, the request's id) as "V".
func taskAnswer(t *testing.T, raw string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return stable(v)
}

func stable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			switch k {
			case "id", "taskId", "incident_id":
				x[k] = "V"
			case "text":
				var env map[string]any
				if s, _ := e.(string); json.Unmarshal([]byte(s), &env) == nil {
					x[k] = stable(env)
				} else {
					x[k] = stable(e)
				}
			default:
				x[k] = stable(e)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = stable(e)
		}
	case string:
		return incidentInText.ReplaceAllString(x, "V")
	}
	return v
}

// TestConsumersAgreeOnTaskResults: a task tool that panics, and one that
// succeeds, give the client the same tasks/result behind the mcp-go front
// (middleware.AddTaskTool) and through mcpguard-proxy in front of the
// bare server: a panic is an internal_error under an incident, its value
// in the log only, however the upstream words it (mcp-go completes a
// panicking task with "panic in task tool handler …", not the "panic
// recovered in …" of a call). (A task that returns a Go error differs by
// design, as any call does: the front holds the error and hides an
// unclassified one; the proxy reads only its text, which it classifies
// and shows redacted.)
func TestConsumersAgreeOnTaskResults(t *testing.T) {
	t.Parallel()
	proxy := proxyBin(t)
	upstream := httptest.NewServer(server.NewStreamableHTTPServer(taskServer()))
	t.Cleanup(upstream.Close)
	guarded := httptest.NewServer(server.NewStreamableHTTPServer(guardedTaskServer()))
	t.Cleanup(guarded.Close)
	pc, err := client.NewStreamableHttpClient(startProxy(t, proxy, upstream.URL+"/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	fc, err := client.NewStreamableHttpClient(guarded.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	front, proxied := newTaskClient(t, fc), newTaskClient(t, pc)
	for _, tool := range []string{"db_panic", "db_count"} {
		_, want, _ := front.runTask(tool)
		_, got, _ := proxied.runTask(tool)
		if w, g := taskAnswer(t, want), taskAnswer(t, got); !reflect.DeepEqual(w, g) {
			t.Errorf("%s: tasks/result\n front: %v\n proxy: %v", tool, w, g)
		}
		if tool == "db_panic" {
			if env := taskEnvelope(t, got); env["error_type"] != "internal_error" || env["incident_id"] == nil {
				t.Errorf("db_panic through the proxy: %v, want an internal_error under an incident", env)
			}
		}
	}
}
