package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// resultTypeOf returns the resultType member of a raw tools/call response.
func resultTypeOf(t *testing.T, raw []byte) string {
	t.Helper()
	var resp struct {
		Result struct {
			ResultType *string `json:"resultType"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	if resp.Result.ResultType == nil {
		return "<absent>"
	}
	return *resp.Result.ResultType
}

// Every error result the Middleware renders carries the resultType go-sdk
// gives the results of tools (a client of protocol 2026-07-28 reads it),
// as those gosdk.AddTool renders inside go-sdk's tool call do.
func TestMiddlewareErrorResultsKeepGoSDKsResultType(t *testing.T) {
	t.Parallel()
	s := newGuardedServer(gosdk.WithLogger(gosdktest.NewLog(t).Logger()))
	gosdk.AddTool(s, &mcp.Tool{Name: "typed"}, getProduct)
	lowLevel(s, "fails", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("no connection to " + dsn)
	})
	lowLevel(s, "builds", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "order not found"}}}, nil
	})
	lowLevel(s, "nil", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	lowLevel(s, "panics", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("boom") })
	c := gosdktest.Connect(t, s)
	want := resultTypeOf(t, c.Call("typed", map[string]any{"id": "p-9"}).ExpectError(gosdk.NotFound).Raw)
	if want != "complete" {
		t.Fatalf("gosdk.AddTool's error result has resultType %s, want complete", want)
	}
	for _, tool := range []string{"fails", "builds", "nil", "panics"} {
		r := c.Call(tool, nil)
		if !r.IsError() {
			t.Fatalf("%s: not an error result: %s", tool, r.Raw)
		}
		if got := resultTypeOf(t, r.Raw); got != want {
			t.Errorf("%s: resultType %s, want %s as gosdk.AddTool's: %s", tool, got, want, r.Raw)
		}
	}
}

// rawCall initializes a session at protocol version, as a client of that
// version would, calls tool and returns the raw result of the call.
func rawCall(t *testing.T, s *mcp.Server, version, tool string) []byte {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(); _ = ss.Wait() })
	send := func(id int64, method, params string) []byte {
		t.Helper()
		req := &jsonrpc.Request{Method: method, Params: json.RawMessage(params)}
		if id != 0 {
			req.ID, _ = jsonrpc.MakeID(float64(id))
		}
		if err := conn.Write(ctx, req); err != nil {
			t.Fatal(err)
		}
		for id != 0 {
			m, err := conn.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if resp, ok := m.(*jsonrpc.Response); ok {
				b, _ := jsonrpc.EncodeMessage(resp)
				return b
			}
		}
		return nil
	}
	send(1, "initialize", `{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"old","version":"0"}}`)
	send(0, "notifications/initialized", `{}`)
	return send(2, "tools/call", `{"name":"`+tool+`","arguments":{}}`)
}

// A client of a protocol without resultType gets none, from gosdk.AddTool
// or from the Middleware: the rule is go-sdk's own.
func TestOlderClientsGetNoResultType(t *testing.T) {
	t.Parallel()
	s := newGuardedServer(gosdk.WithLogger(gosdktest.NewLog(t).Logger()))
	gosdk.AddTool(s, &mcp.Tool{Name: "typed"}, getProduct)
	lowLevel(s, "fails", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("no connection")
	})
	for _, tool := range []string{"typed", "fails"} {
		raw := rawCall(t, s, "2025-06-18", tool)
		if !strings.Contains(string(raw), `"isError":true`) {
			t.Fatalf("%s: not an error result: %s", tool, raw)
		}
		if got := resultTypeOf(t, raw); got != "<absent>" {
			t.Errorf("%s: resultType %s for a 2025-06-18 client: %s", tool, got, raw)
		}
	}
}
