package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http/httptest"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/middleware"
)

// The multi round-trip tools of TestConsumersAgreeOnMultiRoundTrips: each
// asks the client to confirm (SEP-2322), and answers the retry that carries
// the confirmation as its name says.
var mrtrTools = []struct {
	name string
	want string // the answer's error_type; "" for the success "confirmed"
	// stepsFromText: the proxy's bare upstream sends the failure as text
	// only, whose rule gives the steps (consumerCase's stepsFromText)
	stepsFromText bool
}{
	{name: "confirm_ok"},
	{name: "confirm_goerr", want: "not_found", stepsFromText: true},
	{name: "confirm_error_result", want: "execution_failed"},
	{name: "confirm_panic", want: "internal_error"},
	{name: "confirm_count", want: "validation_error"}, // called with {"n":"many"}: refused before it asks
}

// mrtrAnswer is what a confirmed round of tool answers: a text, a Go error,
// an error result's text, or a panic.
func mrtrAnswer(tool string) (text string, err error, isError bool) {
	switch tool {
	case "confirm_goerr":
		return "", fmt.Errorf("loading order 7: %w", &fs.PathError{Op: "open", Path: "orders/7.json", Err: syscall.ENOENT}), false
	case "confirm_error_result":
		return "the quota of this account is spent", nil, true
	case "confirm_panic":
		panic("confirmed, then " + tool + " panicked")
	}
	return "confirmed", nil, false
}

// mrtrState is the requestState every tool hands out with its question.
const mrtrState = "state-of-the-first-round"

var mrtrQuestion = map[string]any{"type": "object", "properties": map[string]any{"approve": map[string]any{"type": "boolean"}}}

// mrtrMcpgoServer serves the tools on mcp-go: guarded by Default, or bare,
// with mcp-go's own recovery, as the proxy's upstream.
func mrtrMcpgoServer(guard bool) *server.MCPServer {
	opts := []server.ServerOption{server.WithToolCapabilities(false)}
	if !guard {
		opts = append(opts, server.WithRecovery())
	}
	s := server.NewMCPServer("mrtr", "1.0.0", opts...)
	if guard {
		s.Use(middleware.Default()...)
	}
	for _, tool := range mrtrTools {
		def := mcpgo.NewTool(tool.name)
		if tool.name == "confirm_count" {
			def = mcpgo.NewTool(tool.name, mcpgo.WithNumber("n"))
		}
		s.AddTool(def, func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			if server.ElicitationResponse(req.Params.InputResponses, "confirm") == nil {
				return server.NewInputRequestBuilder(mrtrState).Elicit("confirm", mcpgo.ElicitationParams{
					Mode: mcpgo.ElicitationModeForm, Message: "Go ahead?", RequestedSchema: mrtrQuestion,
				}).ToolResult(), nil
			}
			text, err, isError := mrtrAnswer(tool.name)
			if err != nil {
				return nil, err
			}
			if isError {
				return mcpgo.NewToolResultError(text), nil
			}
			return mcpgo.NewToolResultText(text), nil
		})
	}
	return s
}

// mrtrGosdkServer serves the tools on go-sdk, behind gosdk.Middleware.
func mrtrGosdkServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mrtr", Version: "1"}, nil)
	s.AddReceivingMiddleware(gosdk.Middleware())
	for _, tool := range mrtrTools {
		schema := json.RawMessage(`{"type":"object"}`)
		if tool.name == "confirm_count" {
			schema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`)
		}
		s.AddTool(&mcp.Tool{Name: tool.name, InputSchema: schema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if _, ok := req.Params.InputResponses["confirm"]; !ok {
				return &mcp.CallToolResult{
					InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Go ahead?", RequestedSchema: mrtrQuestion}},
					RequestState:  mrtrState,
				}, nil
			}
			text, err, isError := mrtrAnswer(tool.name)
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}, nil
		})
	}
	return s
}

// mrtrMcpgoCaller is mcp-go's 2026-07-28 client on tp, which confirms
// every question and retries by itself.
func mrtrMcpgoCaller(t *testing.T, tp transport.Interface) caller {
	t.Helper()
	c := client.NewClient(tp, client.WithElicitationHandler(yes{}))
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	var init mcpgo.InitializeRequest
	init.Params.ClientInfo = mcpgo.Implementation{Name: "e2e-mrtr", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatal(err)
	}
	if res.ProtocolVersion != mcpgo.ProtocolVersion20260728 {
		t.Fatalf("negotiated %s, want the multi round-trip revision", res.ProtocolVersion)
	}
	return func(ctx context.Context, tool, args string) (map[string]any, int) {
		req := mcpgo.CallToolRequest{}
		req.Params.Name = tool
		req.Params.Arguments = json.RawMessage(args)
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return decoded(t, res)
	}
}

// mrtrGosdkCaller is go-sdk's 2026-07-28 client of s, which confirms every
// question and retries by itself.
func mrtrGosdkCaller(t *testing.T, s *mcp.Server) caller {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-mrtr", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s, want the multi round-trip revision", v)
	}
	return func(ctx context.Context, tool, args string) (map[string]any, int) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return decoded(t, res)
	}
}

// TestConsumersAgreeOnMultiRoundTrips sends calls that ask the client for
// input (MCP 2026-07-28) through the three consumers, each with its
// defaults, to clients of each SDK that confirm and retry by themselves:
// the mcp-go front over streamable HTTP, the go-sdk front in memory, and
// mcpguard-proxy in front of a bare mcp-go server. What the client finally
// receives, after the retry that carries the confirmation (sealed state
// and all), is the same from the three: the handler's success, its Go
// error, its error result and its panic as envelopes, and a declared
// refusal before anything is asked. The declared refusal of a 2026-07-28
// client over HTTP that has not listed the tools is the proxy's own
// listing's, which must carry what a server of that revision requires of
// every request (its _meta's protocol version, and an Mcp-Method header
// of its own). Each flow runs three times, the repeated-failure guard's
// count: whether a fourth refusal is held back depends on whether the
// transport tells callers apart (go-sdk's in-memory session does; a
// 2026-07-28 client over HTTP without credentials is nobody the guard can
// count for), not on the consumer.
func TestConsumersAgreeOnMultiRoundTrips(t *testing.T) {
	t.Parallel()
	upstream := httptest.NewServer(server.NewStreamableHTTPServer(mrtrMcpgoServer(false)))
	t.Cleanup(upstream.Close)
	proxied, err := transport.NewStreamableHTTP(startProxy(t, proxyBin(t), upstream.URL+"/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(server.NewStreamableHTTPServer(mrtrMcpgoServer(true)))
	t.Cleanup(front.Close)
	guarded, err := transport.NewStreamableHTTP(front.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	consumers := []struct {
		name string
		call caller
	}{
		{"mcp-go", mrtrMcpgoCaller(t, guarded)},
		{"go-sdk", mrtrGosdkCaller(t, mrtrGosdkServer())},
		{"proxy", mrtrMcpgoCaller(t, proxied)},
	}
	for _, tool := range mrtrTools {
		t.Run(tool.name, func(t *testing.T) {
			args := `{}`
			if tool.name == "confirm_count" {
				args = `{"n":"many"}`
			}
			for round := range 3 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				answers := make([]map[string]any, len(consumers))
				for i, c := range consumers {
					answers[i], _ = c.call(ctx, tool.name, args)
				}
				cancel()
				checkMRTRAnswer(t, tool.want, answers[0])
				for i := 1; i < len(consumers); i++ {
					var want, got any = answers[0], answers[i]
					if tool.stepsFromText && consumers[i].name == "proxy" {
						want, got = withoutSteps(t, want), withoutSteps(t, got)
					}
					if !reflect.DeepEqual(want, got) {
						a, _ := json.MarshalIndent(want, "", " ")
						b, _ := json.MarshalIndent(got, "", " ")
						t.Errorf("round %d: %s answers\n%s\n%s answers\n%s", round+1, consumers[0].name, a, consumers[i].name, b)
					}
				}
			}
		})
	}
}

// checkMRTRAnswer checks that an answer is the confirmed round's: the
// success "confirmed", or an envelope of the code want.
func checkMRTRAnswer(t *testing.T, want string, answer map[string]any) {
	t.Helper()
	if want == "" {
		if !reflect.DeepEqual(answer, map[string]any{"content": []any{map[string]any{"type": "text", "text": "confirmed"}}}) {
			t.Fatalf("want the confirmed round's success, got %v", answer)
		}
		return
	}
	env, _ := answer["structuredContent"].(map[string]any)
	if answer["isError"] != true || env["error_type"] != want {
		t.Fatalf("want an envelope of %s, got %v", want, answer)
	}
}
