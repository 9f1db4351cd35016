package gosdk_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
)

// Malformed tools/call requests stay JSON-RPC errors behind
// gosdk.Middleware, as in the mcp-go chain: raw messages, written on the
// wire no client would send, each answered with an error member and never
// with an envelope result.
func TestMalformedRequestsStayProtocolErrors(t *testing.T) {
	t.Parallel()
	s := newGuardedServer()
	lowLevel(s, "shop_get", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	gosdk.AddTool(s, &mcp.Tool{Name: "typed"}, func(context.Context, *mcp.CallToolRequest, getArgs) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(); _ = ss.Wait() })
	roundTrip := func(raw string) string {
		t.Helper()
		msg, err := jsonrpc.DecodeMessage([]byte(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if err := conn.Write(ctx, msg); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(raw, `"id"`) {
			resp, err := conn.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := jsonrpc.EncodeMessage(resp)
			return string(b)
		}
		return ""
	}
	roundTrip(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	roundTrip(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if ok := roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shop_get","arguments":{}}}`); !strings.Contains(ok, `"result"`) {
		t.Fatalf("a well-formed call failed, so the malformed ones prove nothing: %s", ok)
	}
	for i, raw := range []string{
		`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":"not an object"}`,
		`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":5}}`,
		`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{}}`,
	} {
		resp := roundTrip(raw)
		var m struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(resp), &m); err != nil {
			t.Fatalf("request %d: %v: %s", i, err, resp)
		}
		if m.Error == nil || m.Result != nil {
			t.Errorf("malformed request %s: want a JSON-RPC error, got %s", raw, resp)
		}
	}
	// Arguments that are not an object are the tool's to judge (go-sdk
	// hands a low-level handler its raw arguments): gosdk.AddTool answers
	// with a validation_error the agent can act on.
	got := roundTrip(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"typed","arguments":"not an object"}}`)
	if !strings.Contains(got, `"isError":true`) || !strings.Contains(got, `validation_error`) {
		t.Errorf("non-object arguments to a gosdk.AddTool tool: %s", got)
	}
}
