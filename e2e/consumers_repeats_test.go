package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
)

// The repeated-failure guard is one stage of core/limit that every
// consumer runs: the same sequence of calls gets the same answers from the
// mcp-go front, the go-sdk front and mcpguard-proxy in front of a bare
// server, each with its defaults (one line, or no flag).

// repeatStep is one call of a sequence and the error type its answer must
// have ("" for a success).
type repeatStep struct {
	tool, args, want string
}

var repeatSequences = []struct {
	name  string
	steps []repeatStep
}{
	{"a loop is held back after three failures", []repeatStep{
		{"missing", `{"path":"a.json"}`, "not_found"}, {"missing", `{"path":"a.json"}`, "not_found"},
		{"missing", `{"path":"a.json"}`, "not_found"}, {"missing", `{"path":"a.json"}`, "execution_failed"},
		{"missing", `{"path":"a.json"}`, "execution_failed"},
	}},
	{"the same arguments spelled otherwise are one call", []repeatStep{
		{"missing", `{"path":"b.json","n":1}`, "not_found"}, {"missing", `{ "n" : 1.0 , "path" : "b.json" }`, "not_found"},
		{"missing", `{"p\u0061th":"b\u002ejson","n":10e-1}`, "not_found"}, {"missing", `{"n":1,"path":"b.json"}`, "execution_failed"},
	}},
	{"any success of the caller releases", []repeatStep{
		{"missing", `{"path":"c.json"}`, "not_found"}, {"missing", `{"path":"c.json"}`, "not_found"},
		{"missing", `{"path":"c.json"}`, "not_found"}, {"missing", `{"path":"c.json"}`, "execution_failed"},
		{"ok", `{}`, ""}, {"missing", `{"path":"c.json"}`, "not_found"},
	}},
	{"two integers past 2^53 are two calls", []repeatStep{
		{"missing", `{"id":9007199254740993}`, "not_found"}, {"missing", `{"id":9007199254740992}`, "not_found"},
		{"missing", `{"id":9007199254740993}`, "not_found"}, {"missing", `{"id":9007199254740992}`, "not_found"},
		{"missing", `{"id":9007199254740993}`, "not_found"}, {"missing", `{"id":9007199254740992}`, "not_found"},
		{"missing", `{"id":9007199254740993}`, "execution_failed"},
	}},
}

// errMissing is the failure of missing: a Go error whose text the proxy,
// which reads only the text of its bare upstream's JSON-RPC error,
// classifies as the fronts classify the error (fs.ErrNotExist).
func errMissing(args []byte) error {
	return fmt.Errorf("loading %s: %w", args, &fs.PathError{Op: "open", Path: "data", Err: syscall.ENOENT})
}

func mcpgoRepeatServer(guard bool) *server.MCPServer {
	s := server.NewMCPServer("repeats", "1.0.0", server.WithToolCapabilities(false))
	if guard {
		s.Use(middleware.Default(middleware.WithHints(hints.For("missing",
			hints.OnError(envelope.NotFound, hints.Text(hintOnNotFound)),
			hints.OnError(envelope.ExecutionFailed, hints.Text(hintNotOnHoldBack)))))...)
	}
	s.AddTool(mcpgo.NewTool("ok"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("done"), nil
	})
	s.AddTool(mcpgo.NewTool("missing"), func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return nil, errMissing(canonicalArgs(req.Params.RawArguments))
	})
	return s
}

func gosdkRepeatServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "repeats", Version: "1.0.0"}, nil)
	s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithHints(gosdk.For("missing",
		gosdk.OnError(gosdk.NotFound, gosdk.Text(hintOnNotFound)),
		gosdk.OnError(gosdk.ExecutionFailed, gosdk.Text(hintNotOnHoldBack))))))
	empty := json.RawMessage(`{"type":"object"}`)
	s.AddTool(&mcp.Tool{Name: "ok", InputSchema: empty}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "missing", InputSchema: empty}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errMissing(canonicalArgs(req.Params.Arguments))
	})
	return s
}

// The hints every consumer is configured with for missing. A call the
// guard holds back is a refusal of the repeats stage, which core/pipeline
// puts outside the hints stage: it gets none of the tool's steps of its
// own, but quotes the last failure's, which carried the tool's steps.
const (
	hintOnNotFound    = "List the data folder to see which files exist."
	hintNotOnHoldBack = "Not a step of a held-back call."
	repeatHintsFile   = `hints:
  - tool: missing
    code: not_found
    steps:
      - text: "` + hintOnNotFound + `"
  - tool: missing
    code: execution_failed
    steps:
      - text: "` + hintNotOnHoldBack + `"
`
)

// checkRepeatHints checks the steps of one answer: a failure of the
// handler's starts with its tool's step; a held-back call quotes it and
// has no step of its own code's.
func checkRepeatHints(t *testing.T, where string, res map[string]any) {
	t.Helper()
	sc, _ := res["structuredContent"].(map[string]any)
	steps := fmt.Sprint(sc["next_steps"])
	switch errorType(res) {
	case "not_found":
		if s := asSlice(sc["next_steps"]); len(s) == 0 || s[0] != hintOnNotFound {
			t.Errorf("%s: want %q first in next_steps, got %s", where, hintOnNotFound, steps)
		}
	case "execution_failed":
		if !strings.Contains(steps, hintOnNotFound) || strings.Contains(steps, hintNotOnHoldBack) {
			t.Errorf("%s: a held-back call quotes the last failure's steps and has none of its own, got %s", where, steps)
		}
	}
}

// canonicalArgs is the arguments as the handler names them in its
// message: decoded and encoded again, so that every spelling of one call
// fails with one text on every consumer.
func canonicalArgs(raw []byte) []byte {
	var v map[string]json.Number
	if json.Unmarshal(raw, &v) != nil {
		var s map[string]any
		_ = json.Unmarshal(raw, &s)
		b, _ := json.Marshal(s)
		return b
	}
	b, _ := json.Marshal(v)
	return b
}

// afterInText is the wait a held-back call's last step names.
var afterInText = regexp.MustCompile(`after \d+ ms`)

// TestConsumersAgreeOnRepeatedFailures runs each sequence through the
// three consumers and compares every answer, next steps aside for the
// proxy (its failure's steps come from the text, see consumerCase).
func TestConsumersAgreeOnRepeatedFailures(t *testing.T) {
	t.Parallel()
	upstream := httptest.NewServer(server.NewStreamableHTTPServer(mcpgoRepeatServer(false)))
	t.Cleanup(upstream.Close)
	// Each consumer's client is a caller the guard can tell apart: over
	// HTTP at MCP 2026-07-28 there is no session, so the proxy's client
	// sends credentials; the in-process mcp-go client calls as a principal
	// (the context it passes); go-sdk's in-memory client is a connection.
	hintsFile := filepath.Join(t.TempDir(), "hints.yaml")
	if err := os.WriteFile(hintsFile, []byte(repeatHintsFile), 0o600); err != nil {
		t.Fatal(err)
	}
	proxied, err := client.NewStreamableHttpClient(startProxy(t, proxyBin(t), upstream.URL+"/mcp", "--hints", hintsFile),
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer e2e"}))
	if err != nil {
		t.Fatal(err)
	}
	inProcess, err := client.NewInProcessClient(mcpgoRepeatServer(true))
	if err != nil {
		t.Fatal(err)
	}
	consumers := []struct {
		name string
		call caller
	}{
		{"mcp-go", mcpgoCaller(t, inProcess)},
		{"go-sdk", gosdkCaller(t, gosdkRepeatServer())},
		{"proxy", mcpgoCaller(t, proxied)},
	}
	ctx, cancel := context.WithTimeout(limit.ContextWithPrincipal(context.Background(), "e2e"), time.Minute)
	defer cancel()
	for _, seq := range repeatSequences {
		for i, step := range seq.steps {
			answers := make([]any, len(consumers))
			for k, c := range consumers {
				res, code := c.call(ctx, step.tool, step.args)
				if code != 0 {
					t.Fatalf("%s, call %d, %s: JSON-RPC error %d", seq.name, i+1, c.name, code)
				}
				checkRepeatHints(t, fmt.Sprintf("%s, call %d, %s", seq.name, i+1, c.name), res)
				answers[k] = withoutSteps(t, normalWait(res))
				if got := errorType(res); got != step.want {
					t.Errorf("%s, call %d, %s: answered %q, want %q: %v", seq.name, i+1, c.name, got, step.want, res)
				}
			}
			for k := 1; k < len(consumers); k++ {
				if !reflect.DeepEqual(answers[0], answers[k]) {
					a, _ := json.MarshalIndent(answers[0], "", " ")
					b, _ := json.MarshalIndent(answers[k], "", " ")
					t.Errorf("%s, call %d: %s answers\n%s\n%s answers\n%s", seq.name, i+1, consumers[0].name, a, consumers[k].name, b)
				}
			}
		}
	}
}

func normalWait(res map[string]any) map[string]any {
	if sc, ok := res["structuredContent"].(map[string]any); ok {
		if msg, ok := sc["message"].(string); ok {
			sc["message"] = afterInText.ReplaceAllString(msg, "after N ms")
		}
	}
	return res
}

func errorType(res map[string]any) string {
	if res["isError"] != true {
		return ""
	}
	sc, _ := res["structuredContent"].(map[string]any)
	s, _ := sc["error_type"].(string)
	return s
}

// TestProxyRepeatsFlags: --repeats 0 turns the proxy's guard off;
// --repeats 1 holds back after one failure.
func TestProxyRepeatsFlags(t *testing.T) {
	t.Parallel()
	upstream := httptest.NewServer(server.NewStreamableHTTPServer(mcpgoRepeatServer(false)))
	t.Cleanup(upstream.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for flag, want := range map[string][]string{
		"0": {"not_found", "not_found", "not_found", "not_found", "not_found"},
		"1": {"not_found", "execution_failed", "execution_failed", "execution_failed", "execution_failed"},
	} {
		c, err := client.NewStreamableHttpClient(startProxy(t, proxyBin(t), upstream.URL+"/mcp", "--repeats", flag),
			transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer e2e"}))
		if err != nil {
			t.Fatal(err)
		}
		call := mcpgoCaller(t, c)
		for i, w := range want {
			if res, _ := call(ctx, "missing", `{"path":"x"}`); errorType(res) != w {
				t.Errorf("--repeats %s, call %d: %q, want %q", flag, i+1, errorType(res), w)
			}
		}
	}
}
