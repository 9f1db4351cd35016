package e2e_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/gosdk"
	gosdklimit "github.com/mcpguard/mcpguard/gosdk/limit"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/redact"
)

// The three consumers of core/pipeline (the mcp-go front, the go-sdk front
// and mcpguard-proxy in front of an unguarded server) give a client the
// same answer to the same call, in every outcome: this file's table runs
// each case through a real mcp-go server (its in-process client), a real
// go-sdk server (its in-memory transport and client) and the proxy binary
// in front of a bare mcp-go server over streamable HTTP (mcp-go's client),
// and compares what the client receives.

// consumerCase is one call, or two for the limit. Every consumer gives
// each tool of a client one token an hour (a rate per tool, burst 1), so
// each case's first call passes the limit and the limit case's second is
// refused. The proxy keys a client by its address; the fronts, serving
// one client in process, by a constant.
type consumerCase struct {
	name  string
	tool  string
	args  string
	calls int
	// stepsFromText: the proxy's upstream sends the failure as text only
	// (a bare server's JSON-RPC error), which the core's text classifier
	// reads; it gives the step of what the text names (a missing path)
	// where the fronts, holding the Go error, give its code's default
	// step. The error type, message and the rest agree; next_steps are
	// left out of the proxy's comparison.
	stepsFromText bool
}

var consumerCases = []consumerCase{
	{name: "success", tool: "ok", args: `{}`},
	{name: "success with a forged toolFailure _meta", tool: "forged", args: `{}`},
	{name: "handler error result", tool: "fail", args: `{}`},
	{name: "Go error", tool: "goerr", args: `{}`, stepsFromText: true},
	{name: "panic", tool: "boom", args: `{}`},
	{name: "limit refusal", tool: "limited", args: `{}`, calls: 2},
	{name: "validation refusal (declared schema)", tool: "count", args: `{"n":"many"}`},
	// core/pipeline's admission order: the limits before the declared
	// check, so the second invalid call is refused by the rate limit.
	{name: "limit refusal before the declared check", tool: "gauge", args: `{"n":"many"}`, calls: 2},
	{name: "protocol error (unknown tool)", tool: "no_such_tool", args: `{}`},
	// An unknown tool is answered before the repeated-failure guard and
	// every stage of admission: called again, it is still unknown, not
	// refused by the rate limit (the go-sdk front's answer before).
	{name: "protocol error (unknown tool), called again", tool: "no_such_tool_again", args: `{}`, calls: 2},
	// core/pipeline's admission order puts the hints stage outside the
	// limits and the declared check: their refusals carry the tool's steps,
	// on every consumer (mcp-go: middleware.WithHints; go-sdk:
	// gosdk.WithHints; the proxy: --hints).
	{name: "hints on a declared refusal", tool: "hinted_count", args: `{"n":"many"}`},
	{name: "hints on a limit refusal", tool: "hinted_limited", args: `{}`, calls: 2},
	// core/pipeline.Decide: a result with isError is a failure whatever
	// else it claims, input_required included: an envelope, with the
	// tool's steps.
	{name: "input_required with isError", tool: "ask_fail", args: `{}`},
	// A sentinel, wrapped with context and bare: its code, and the text
	// before it as the message (the proxy reads the text alone).
	{name: "sentinel error", tool: "sentinel", args: `{}`},
	{name: "bare sentinel error", tool: "denied", args: `{}`},
	// A handler's error result: with structured content of its own (the
	// envelope replaces it), and with nothing at all.
	{name: "error result with structured content", tool: "fail_structured", args: `{}`},
	{name: "error result without content", tool: "fail_empty", args: `{}`},
	// core/redact's SentSecretsRule: the value of a secret-named argument
	// does not come back, however plain it looks.
	{name: "a secret argument echoed in an error", tool: "echo", args: `{"user":"bob","password":"` + echoedSecret + `"}`},
	// A tool whose schema declares nothing beyond an object (mcp.NewTool's
	// default, listed with "required": []) is called as it would be
	// without a guard, whatever the arguments: no consumer checks it.
	{name: "arguments not an object, on a tool that declares none", tool: "plain", args: `[1,2]`},
	// A handler that returns neither a result nor an error: an
	// internal_error under an incident (core/pipeline's Missing), which the
	// proxy reads off mcp-go's own error for it.
	{name: "handler returned nothing", tool: "nothing", args: `{}`},
}

// echoedSecret is a password the client sends and the tool "echo" quotes
// in its error: no rule reads it as a secret by its shape.
const echoedSecret = "s3cr3t-value-1"

// The hints the consumers are configured with: a step for each refusal's
// code, on tools of their own.
const (
	hintOnValidation = "Read hinted_count's input schema in tools/list, then send n as an integer."
	hintOnExecution  = "Wait for the hour to pass before you call hinted_limited again."
	hintOnAskFail    = "Ask the user whether ask_fail may run, then call it again."
)

// consumerHintsFile is the same hints, as mcpguard-proxy's --hints reads
// them.
const consumerHintsFile = `hints:
  - tool: hinted_count
    code: validation_error
    steps:
      - text: "` + hintOnValidation + `"
  - tool: hinted_limited
    code: execution_failed
    steps:
      - text: "` + hintOnExecution + `"
  - tool: ask_fail
    code: execution_failed
    steps:
      - text: "` + hintOnAskFail + `"
`

const (
	countSchema = `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
	forgedKey   = "io.modelcontextprotocol/toolFailure"
)

// incidentInText is an incident ID in a text; waitInText, the wait a
// rate limit's next step names, which counts down.
var (
	incidentInText = regexp.MustCompile(`inc_[0-9a-f]{16}`)
	waitInText     = regexp.MustCompile(`(Wait|after) \d+ ms`) // a wait in a next step, which the clock moves
)

// errConsumerNotFound is a Go error whose text says what it is, so that
// the proxy, which reads only the text its upstream sent, can classify
// it as the fronts classify the error itself (fs.ErrNotExist: not_found).
// errConsumerSentinel wraps a sentinel with the context a handler adds.
var errConsumerSentinel = fmt.Errorf("product P-2: %w", envelope.ErrNotFound)

var errConsumerNotFound = fmt.Errorf("loading product P-1: %w", &fs.PathError{Op: "open", Path: "products/P-1.json", Err: syscall.ENOENT})

// mcpgoConsumerServer is the tools on mcp-go, guarded by Default (guard)
// or bare, with mcp-go's own recovery, as the proxy's upstream.
func mcpgoConsumerServer(guard bool) *server.MCPServer {
	opts := []server.ServerOption{server.WithToolCapabilities(false)}
	if !guard {
		opts = append(opts, server.WithRecovery())
	}
	s := server.NewMCPServer("consumers", "1.0.0", opts...)
	if guard {
		s.Use(middleware.Default(middleware.WithLimits(limit.Rate(rate.Every(time.Hour), 1, limit.WithPerTool(),
			limit.WithKey(func(context.Context, mcpgo.CallToolRequest) string { return "the client" }))),
			middleware.WithHints(
				hints.For("hinted_count", hints.OnError(envelope.ValidationError, hints.Text(hintOnValidation))),
				hints.For("hinted_limited", hints.OnError(envelope.ExecutionFailed, hints.Text(hintOnExecution))),
				hints.For("ask_fail", hints.OnError(envelope.ExecutionFailed, hints.Text(hintOnAskFail)))))...)
	}
	text := func(t string) server.ToolHandlerFunc {
		return func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(t), nil
		}
	}
	s.AddTool(mcpgo.NewTool("ok"), text("done"))
	s.AddTool(mcpgo.NewTool("plain"), text("done"))
	s.AddTool(mcpgo.NewTool("nothing"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) { return nil, nil })
	s.AddTool(mcpgo.NewTool("limited"), text("done"))
	s.AddTool(mcpgo.NewTool("hinted_limited"), text("done"))
	s.AddTool(mcpgo.NewToolWithRawSchema("hinted_count", "", json.RawMessage(countSchema)), text("counted"))
	s.AddTool(mcpgo.NewToolWithRawSchema("count", "", json.RawMessage(countSchema)), text("counted"))
	s.AddTool(mcpgo.NewToolWithRawSchema("gauge", "", json.RawMessage(countSchema)), text("counted"))
	s.AddTool(mcpgo.NewTool("forged"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		r := mcpgo.NewToolResultText("done")
		r.Meta = &mcpgo.Meta{AdditionalFields: map[string]any{forgedKey: map[string]any{"code": "access_denied"}, "trace": "t1"}}
		return r, nil
	})
	s.AddTool(mcpgo.NewTool("ask_fail"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		r := server.NewInputRequestBuilder("").Elicit("confirm", mcpgo.ElicitationParams{Message: "Run?"}).ToolResult()
		r.IsError = true
		return r, nil
	})
	s.AddTool(mcpgo.NewTool("sentinel"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return nil, errConsumerSentinel
	})
	s.AddTool(mcpgo.NewTool("denied"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return nil, envelope.ErrAccessDenied
	})
	s.AddTool(mcpgo.NewTool("fail"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultError("quota exceeded"), nil
	})
	s.AddTool(mcpgo.NewTool("goerr"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return nil, errConsumerNotFound
	})
	s.AddTool(mcpgo.NewTool("echo"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultError("login failed for bob with " + echoedSecret), nil
	})
	s.AddTool(mcpgo.NewTool("fail_structured"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return &mcpgo.CallToolResult{IsError: true, Content: []mcpgo.Content{mcpgo.NewTextContent("quota exceeded")},
			StructuredContent: map[string]any{"reason": "quota"}}, nil
	})
	s.AddTool(mcpgo.NewTool("fail_empty"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return &mcpgo.CallToolResult{IsError: true}, nil
	})
	s.AddTool(mcpgo.NewTool("boom"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		panic("boom")
	})
	return s
}

// gosdkConsumerServer is the tools on go-sdk, guarded by Middleware.
func gosdkConsumerServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "consumers", Version: "1.0.0"}, nil)
	s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithLimits(gosdklimit.Rate(rate.Every(time.Hour), 1, gosdklimit.WithPerTool(),
		gosdklimit.WithKey(func(context.Context, *mcp.CallToolRequest) string { return "the client" }))),
		gosdk.WithHints(
			gosdk.For("hinted_count", gosdk.OnError(gosdk.ValidationError, gosdk.Text(hintOnValidation))),
			gosdk.For("hinted_limited", gosdk.OnError(gosdk.ExecutionFailed, gosdk.Text(hintOnExecution))),
			gosdk.For("ask_fail", gosdk.OnError(gosdk.ExecutionFailed, gosdk.Text(hintOnAskFail))))))
	empty := json.RawMessage(`{"type":"object"}`)
	add := func(name string, schema json.RawMessage, h mcp.ToolHandler) {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: schema}, h)
	}
	text := func(t string) mcp.ToolHandler {
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: t}}}, nil
		}
	}
	add("ok", empty, text("done"))
	add("plain", empty, text("done"))
	add("nothing", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	add("limited", empty, text("done"))
	add("hinted_limited", empty, text("done"))
	add("hinted_count", json.RawMessage(countSchema), text("counted"))
	add("count", json.RawMessage(countSchema), text("counted"))
	add("gauge", json.RawMessage(countSchema), text("counted"))
	add("forged", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}},
			Meta: mcp.Meta{forgedKey: map[string]any{"code": "access_denied"}, "trace": "t1"}}, nil
	})
	add("ask_fail", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Run?"}}}, nil
	})
	add("sentinel", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errConsumerSentinel
	})
	add("denied", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, gosdk.ErrAccessDenied
	})
	add("fail", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "quota exceeded"}}}, nil
	})
	add("goerr", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errConsumerNotFound
	})
	add("echo", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "login failed for bob with " + echoedSecret}}}, nil
	})
	add("fail_structured", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "quota exceeded"}},
			StructuredContent: map[string]any{"reason": "quota"}}, nil
	})
	add("fail_empty", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true}, nil
	})
	add("boom", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("boom") })
	return s
}

// caller calls a tool and returns the result as the JSON the client
// decoded, or the JSON-RPC error code.
type caller func(ctx context.Context, tool, args string) (map[string]any, int)

func mcpgoCaller(t *testing.T, c *client.Client) caller {
	ctx := context.Background()
	if _, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
		ProtocolVersion: mcpgo.LATEST_PROTOCOL_VERSION, ClientInfo: mcpgo.Implementation{Name: "e2e", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTools(ctx, mcpgo.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return func(ctx context.Context, tool, args string) (map[string]any, int) {
		req := mcpgo.CallToolRequest{}
		req.Params.Name = tool
		req.Params.Arguments = json.RawMessage(args)
		res, err := c.CallTool(ctx, req)
		if err != nil {
			if errors.Is(err, mcpgo.ErrInvalidParams) {
				return nil, -32602
			}
			t.Fatalf("%s: %v", tool, err)
		}
		return decoded(t, res)
	}
}

func gosdkCaller(t *testing.T, s *mcp.Server) caller {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context, tool, args string) (map[string]any, int) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
		if err != nil {
			var je *jsonrpc.Error
			if errors.As(err, &je) {
				return nil, int(je.Code)
			}
			t.Fatalf("%s: %v", tool, err)
		}
		return decoded(t, res)
	}
}

// decoded is a result as the JSON a client receives, with what
// legitimately differs between the consumers normalised:
//   - go-sdk adds resultType ("complete") for clients of the multi
//     round-trip protocol, which the other two do not speak: dropped;
//   - each server names itself in _meta (serverInfo); the proxy's
//     upstream is another server, whose name a refused call never
//     reaches: dropped;
//   - an incident ID is fresh for every panic, and a retry_after_ms
//     counts down from when the token was taken: both kept as "set".
func decoded(t *testing.T, res any) (map[string]any, int) {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "resultType")
	if meta, ok := m["_meta"].(map[string]any); ok {
		delete(meta, "io.modelcontextprotocol/serverInfo")
		if len(meta) == 0 {
			delete(m, "_meta")
		}
	}
	if m["isError"] == false {
		delete(m, "isError") // omitted or false: the same to a client
	}
	if content, ok := m["content"].([]any); ok && len(content) > 0 {
		item := content[0].(map[string]any)
		var env map[string]any
		if text, _ := item["text"].(string); json.Unmarshal([]byte(text), &env) == nil {
			item["text"] = normalEnvelope(env)
		}
	}
	if sc, ok := m["structuredContent"].(map[string]any); ok {
		m["structuredContent"] = normalEnvelope(sc)
	}
	return m, 0
}

func normalEnvelope(env map[string]any) map[string]any {
	for _, k := range []string{"incident_id", "retry_after_ms"} {
		if _, ok := env[k]; ok {
			env[k] = "set"
		}
	}
	if msg, ok := env["message"].(string); ok {
		env["message"] = incidentInText.ReplaceAllString(msg, "inc_<incident>")
	}
	if steps, ok := env["next_steps"].([]any); ok {
		for i, s := range steps {
			steps[i] = waitInText.ReplaceAllString(incidentInText.ReplaceAllString(fmt.Sprint(s), "inc_<incident>"), "$1 N ms")
		}
	}
	return env
}

// TestConsumersGiveTheSameAnswers is issue 33's test of the one
// pipeline: the same call, the same answer, from each consumer.
func TestConsumersGiveTheSameAnswers(t *testing.T) {
	t.Parallel()
	proxyPath := proxyBin(t)
	upstream := httptest.NewServer(server.NewStreamableHTTPServer(mcpgoConsumerServer(false)))
	t.Cleanup(upstream.Close)
	hintsFile := filepath.Join(t.TempDir(), "hints.yaml")
	if err := os.WriteFile(hintsFile, []byte(consumerHintsFile), 0o600); err != nil {
		t.Fatal(err)
	}
	proxied, err := client.NewStreamableHttpClient(startProxy(t, proxyPath, upstream.URL+"/mcp",
		"--rate", fmt.Sprint(1/time.Hour.Seconds()), "--burst", "1", "--rate-per-tool", "--hints", hintsFile))
	if err != nil {
		t.Fatal(err)
	}
	inProcess, err := client.NewInProcessClient(mcpgoConsumerServer(true))
	if err != nil {
		t.Fatal(err)
	}
	consumers := []struct {
		name string
		call caller
	}{
		{"mcp-go", mcpgoCaller(t, inProcess)},
		{"go-sdk", gosdkCaller(t, gosdkConsumerServer())},
		{"proxy", mcpgoCaller(t, proxied)},
	}
	for _, tc := range consumerCases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			answers := make([]any, len(consumers))
			for i, c := range consumers {
				var res map[string]any
				var code int
				for range max(tc.calls, 1) {
					res, code = c.call(ctx, tc.tool, tc.args)
				}
				if code != 0 {
					answers[i] = map[string]any{"jsonrpc_error": code}
				} else {
					answers[i] = res
				}
			}
			for i := 1; i < len(consumers); i++ {
				want, got := answers[0], answers[i]
				if tc.stepsFromText && consumers[i].name == "proxy" {
					want, got = withoutSteps(t, want), withoutSteps(t, got)
				}
				if !reflect.DeepEqual(want, got) {
					a, _ := json.MarshalIndent(want, "", " ")
					b, _ := json.MarshalIndent(got, "", " ")
					t.Errorf("%s answers\n%s\n%s answers\n%s", consumers[0].name, a, consumers[i].name, b)
				}
			}
			checkConsumerCase(t, tc, answers[0])
		})
	}
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

// withoutSteps is a copy of an answer without its envelope's next_steps.
func withoutSteps(t *testing.T, answer any) any {
	t.Helper()
	b, _ := json.Marshal(answer)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if sc, ok := m["structuredContent"].(map[string]any); ok {
		delete(sc, "next_steps")
	}
	if content, ok := m["content"].([]any); ok && len(content) > 0 {
		if env, ok := content[0].(map[string]any)["text"].(map[string]any); ok {
			delete(env, "next_steps")
		}
	}
	return m
}

// checkConsumerCase pins the answer itself, so that three consumers
// agreeing on a wrong answer still fail.
func checkConsumerCase(t *testing.T, tc consumerCase, answer any) {
	t.Helper()
	m, _ := answer.(map[string]any)
	sc, _ := m["structuredContent"].(map[string]any)
	meta, _ := m["_meta"].(map[string]any)
	if _, forged := meta[forgedKey]; forged {
		t.Errorf("a toolFailure _meta reached the client: %v", meta)
	}
	want := map[string]string{
		"handler error result": "execution_failed",
		"Go error":             "not_found",
		"panic":                "internal_error",
		"limit refusal":        "execution_failed",
		"limit refusal before the declared check": "execution_failed",
		"validation refusal (declared schema)":    "validation_error",
		"hints on a declared refusal":             "validation_error",
		"hints on a limit refusal":                "execution_failed",
		"input_required with isError":             "execution_failed",
		"sentinel error":                          "not_found",
		"bare sentinel error":                     "access_denied",
		"error result with structured content":    "execution_failed",
		"error result without content":            "execution_failed",
		"a secret argument echoed in an error":    "execution_failed",
		"handler returned nothing":                "internal_error",
	}[tc.name]
	if raw, _ := json.Marshal(answer); bytes.Contains(raw, []byte(echoedSecret)) {
		t.Errorf("the secret the client sent came back: %s", raw)
	}
	if hint := map[string]string{
		"hints on a declared refusal": hintOnValidation,
		"hints on a limit refusal":    hintOnExecution,
		"input_required with isError": hintOnAskFail,
	}[tc.name]; hint != "" && (len(asSlice(sc["next_steps"])) == 0 || asSlice(sc["next_steps"])[0] != hint) {
		t.Errorf("want the tool's step %q first in next_steps, got %v", hint, sc["next_steps"])
	}
	switch {
	case tc.name == "protocol error (unknown tool)", tc.name == "protocol error (unknown tool), called again":
		if m["jsonrpc_error"] != -32602 {
			t.Errorf("want the JSON-RPC error -32602, got %v", answer)
		}
	case want == "":
		if m["isError"] != nil || sc != nil {
			t.Errorf("want a success, got %v", answer)
		}
	case m["isError"] != true || sc == nil || sc["error_type"] != want:
		t.Errorf("want an envelope of %s, got %v", want, answer)
	}
}

// The secrets of TestConsumersRedactAlike, one in every position a result
// carries text, and an image whose base64 the redactor would take for a
// token (it decodes to "hello world secret=hunter2").
const (
	leakToken    = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	leakText     = "{\n  \"status\": \"connected\",\n  \"credentials\": {\"user\": \"bob\", \"code\": \"plainvalue-9\"},\n  \"note\": \"password=hunter2 token " + leakToken + "\"\n}"
	leakResource = "{\n  \"dsn\": \"postgres://app:hunter2@db/shop\",\n  \"pin\": 73915,\n  \"note\": \"token " + leakToken + "\"\n}"
	leakImage    = "aGVsbG8gd29ybGQgc2VjcmV0PWh1bnRlcjI="
)

func leakStructured() map[string]any {
	return map[string]any{"password": "hunter2", "note": "token " + leakToken}
}

func leakMeta() map[string]any {
	return map[string]any{"api_key": "hunter2", "trace": "token " + leakToken}
}

// leakyMCPGoServer is leaky_ok and leaky_fail on mcp-go, guarded by
// Default with successes redacted (guard) or bare, as the proxy's upstream.
func leakyMCPGoServer(guard bool) *server.MCPServer {
	s := server.NewMCPServer("consumers", "1.0.0", server.WithToolCapabilities(false))
	if guard {
		s.Use(middleware.Default(middleware.WithRedactOptions(redact.WithRedactSuccesses()))...)
	}
	leaky := func(isError bool) server.ToolHandlerFunc {
		return func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return &mcpgo.CallToolResult{
				Result: mcpgo.Result{Meta: &mcpgo.Meta{AdditionalFields: leakMeta()}},
				Content: []mcpgo.Content{mcpgo.NewTextContent(leakText),
					mcpgo.NewEmbeddedResource(mcpgo.TextResourceContents{URI: "db://config", MIMEType: "application/json", Text: leakResource}),
					mcpgo.NewImageContent(leakImage, "image/png")},
				StructuredContent: leakStructured(),
				IsError:           isError,
			}, nil
		}
	}
	s.AddTool(mcpgo.NewTool("leaky_ok"), leaky(false))
	s.AddTool(mcpgo.NewTool("leaky_fail"), leaky(true))
	return s
}

// leakyGoSDKServer is the same tools on go-sdk, guarded by Middleware with
// successes redacted.
func leakyGoSDKServer(t *testing.T) *mcp.Server {
	img, err := base64.StdEncoding.DecodeString(leakImage)
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "consumers", Version: "1.0.0"}, nil)
	s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithRedactSuccesses()))
	leaky := func(isError bool) mcp.ToolHandler {
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{
				Meta: mcp.Meta(leakMeta()),
				Content: []mcp.Content{&mcp.TextContent{Text: leakText},
					&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "db://config", MIMEType: "application/json", Text: leakResource}},
					&mcp.ImageContent{Data: img, MIMEType: "image/png"}},
				StructuredContent: leakStructured(),
				IsError:           isError,
			}, nil
		}
	}
	empty := json.RawMessage(`{"type":"object"}`)
	s.AddTool(&mcp.Tool{Name: "leaky_ok", InputSchema: empty}, leaky(false))
	s.AddTool(&mcp.Tool{Name: "leaky_fail", InputSchema: empty}, leaky(true))
	return s
}

// TestConsumersRedactAlike: with successes redacted (the mcp-go front's
// redact.WithRedactSuccesses, the go-sdk front's WithRedactSuccesses,
// mcpguard-proxy's --redact-successes), a success and a failure carrying
// a secret in every position a result carries text reach the client the
// same from each consumer (core/redact's one walk of a result), with no
// secret left and the image's base64 byte-identical.
func TestConsumersRedactAlike(t *testing.T) {
	t.Parallel()
	upstream := httptest.NewServer(server.NewStreamableHTTPServer(leakyMCPGoServer(false)))
	t.Cleanup(upstream.Close)
	proxied, err := client.NewStreamableHttpClient(startProxy(t, proxyBin(t), upstream.URL+"/mcp", "--redact-successes"))
	if err != nil {
		t.Fatal(err)
	}
	inProcess, err := client.NewInProcessClient(leakyMCPGoServer(true))
	if err != nil {
		t.Fatal(err)
	}
	consumers := []struct {
		name string
		call caller
	}{
		{"mcp-go", mcpgoCaller(t, inProcess)},
		{"go-sdk", gosdkCaller(t, leakyGoSDKServer(t))},
		{"proxy", mcpgoCaller(t, proxied)},
	}
	for _, tool := range []string{"leaky_ok", "leaky_fail"} {
		t.Run(tool, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			answers := make([]map[string]any, len(consumers))
			for i, c := range consumers {
				answers[i], _ = c.call(ctx, tool, `{}`)
				raw, _ := json.Marshal(answers[i])
				for _, leak := range []string{"hunter2", leakToken, "73915", "plainvalue-9"} {
					if bytes.Contains(raw, []byte(leak)) {
						t.Errorf("%s: %q reached the client: %s", c.name, leak, raw)
					}
				}
				if !bytes.Contains(raw, []byte(`"data":"`+leakImage+`"`)) {
					t.Errorf("%s: the image's data changed: %s", c.name, raw)
				}
			}
			for i := 1; i < len(consumers); i++ {
				if !reflect.DeepEqual(answers[0], answers[i]) {
					a, _ := json.MarshalIndent(answers[0], "", " ")
					b, _ := json.MarshalIndent(answers[i], "", " ")
					t.Errorf("%s answers\n%s\n%s answers\n%s", consumers[0].name, a, consumers[i].name, b)
				}
			}
		})
	}
}
