package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
)

// The proxy's upstream in TestConsumersGiveTheSameAnswers is an mcp-go
// server. This file puts it in front of a bare go-sdk server instead, and
// compares what a client reads with what the go-sdk front gives for the
// same handlers: a go-sdk server's failures reach the wire in go-sdk's own
// shapes (a typed handler's error as an isError result with its text, a
// nil result as "result": null), which the proxy reads as the front reads
// them.

// gosdkUpstreamServer is the tools of the cases below on go-sdk, behind
// the Middleware (guard) or bare, as the proxy's upstream. (No tool
// panics: a bare go-sdk server recovers no panic, and the process ends.)
func gosdkUpstreamServer(guard bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "consumers", Version: "1.0.0"}, nil)
	if guard {
		s.AddReceivingMiddleware(gosdk.Middleware())
	}
	add := func(name string, h mcp.ToolHandler) {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, h)
	}
	add("ok", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	add("nothing", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	add("fail", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "quota exceeded"}}}, nil
	})
	add("denied", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, gosdk.ErrAccessDenied
	})
	// A question with content besides, which go-sdk refuses to send (a
	// -32603 "server bug"): a failure of the tool, not a JSON-RPC error.
	add("ask_with_text", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "and some text"}},
			InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Go ahead?"}}, RequestState: "s"}, nil
	})
	type order struct {
		Quantity int `json:"quantity"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "order"}, func(_ context.Context, _ *mcp.CallToolRequest, in order) (*mcp.CallToolResult, any, error) {
		switch {
		case in.Quantity < 0:
			return nil, nil, fmt.Errorf("quantity must be positive, got %d", in.Quantity)
		case in.Quantity > 100:
			return nil, nil, errors.New("the warehouse at https://wh.internal:8443/api refused: connection refused")
		case in.Quantity == 42:
			return nil, nil, errors.New("reserving stock failed")
		}
		return nil, map[string]int{"quantity": in.Quantity}, nil
	})
	type stock struct {
		Left int `json:"left"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "stock"}, func(_ context.Context, _ *mcp.CallToolRequest, in order) (*mcp.CallToolResult, stock, error) {
		if in.Quantity < 0 {
			return nil, stock{}, fmt.Errorf("product P-%d: %w", -in.Quantity, gosdk.ErrNotFound)
		}
		return nil, stock{Left: in.Quantity}, nil
	})
	return s
}

// gosdkUpstreamCaller is mcpgoCaller for a go-sdk v1.8.0 upstream, whose
// streamable HTTP handler does not serve MCP 2026-07-28.
func gosdkUpstreamCaller(t *testing.T, c *client.Client) caller {
	ctx := context.Background()
	if _, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
		ProtocolVersion: mcpgo.ProtocolVersion20251125, ClientInfo: mcpgo.Implementation{Name: "e2e", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTools(ctx, mcpgo.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return func(ctx context.Context, tool, args string) (map[string]any, int) {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, json.RawMessage(args)
		res, err := c.CallTool(ctx, req)
		if err != nil {
			if errors.Is(err, mcpgo.ErrInvalidParams) {
				return nil, -32602
			}
			t.Errorf("%s: the client could not read the answer: %v", tool, err)
			return nil, -1
		}
		return decoded(t, res)
	}
}

// TestProxyInFrontOfGoSDKAnswersAsTheGoSDKFront: the same calls, to the
// same go-sdk handlers, give a client the same answer from the go-sdk
// front and from mcpguard-proxy in front of the bare server.
func TestProxyInFrontOfGoSDKAnswersAsTheGoSDKFront(t *testing.T) {
	t.Parallel()
	upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return gosdkUpstreamServer(false) }, nil))
	t.Cleanup(upstream.Close)
	proxied, err := client.NewStreamableHttpClient(startProxy(t, proxyBin(t), upstream.URL))
	if err != nil {
		t.Fatal(err)
	}
	front, proxy := gosdkCaller(t, gosdkUpstreamServer(true)), gosdkUpstreamCaller(t, proxied)
	for _, tc := range []struct{ name, tool, args string }{
		{"success", "ok", `{}`},
		{"handler returned nothing", "nothing", `{}`},
		{"handler error result", "fail", `{}`},
		{"sentinel error", "denied", `{}`},
		{"a question with content, which go-sdk refuses to send", "ask_with_text", `{}`},
		{"typed handler, success", "order", `{"quantity":2}`},
		{"typed handler, arguments against the schema", "order", `{"quantity":"two"}`},
		{"typed handler, an error whose text says what it is", "order", `{"quantity":-1}`},
		{"typed handler, an error naming a service that refused", "order", `{"quantity":101}`},
		{"typed handler, an error nothing classifies", "order", `{"quantity":42}`},
		{"typed handler, a member the schema does not have", "order", `{"quantity":1,"gift":true}`},
		{"typed handler, a member in another case", "order", `{"Quantity":1}`},
		{"typed handler, a member twice", "order", `{"quantity":1,"quantity":2}`},
		{"typed handler, no arguments", "order", `null`},
		{"typed handler, a number written as a float", "order", `{"quantity":2.0}`},
		{"typed handler with an output schema, success", "stock", `{"quantity":3}`},
		{"typed handler with an output schema, an error", "stock", `{"quantity":-3}`},
		{"typed handler with an output schema, arguments against the schema", "stock", `{"quantity":"x"}`},
		{"unknown tool", "no_such_tool", `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			answers := make([]any, 2)
			for i, call := range []caller{front, proxy} {
				res, code := call(ctx, tc.tool, tc.args)
				answers[i] = res
				if code != 0 {
					answers[i] = map[string]any{"jsonrpc_error": code}
					if tc.tool != "no_such_tool" {
						t.Errorf("a call of a tool the server has got a JSON-RPC error %d, which the model never reads", code)
					}
				}
			}
			if !reflect.DeepEqual(answers[0], answers[1]) {
				a, _ := json.MarshalIndent(answers[0], "", " ")
				b, _ := json.MarshalIndent(answers[1], "", " ")
				t.Errorf("the go-sdk front answers\n%s\nthe proxy in front of bare go-sdk answers\n%s", a, b)
			}
		})
	}
}
