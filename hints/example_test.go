package hints_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/recover"
)

// send calls a tool through HandleMessage, as a transport would, and
// returns the result a client receives.
func send(s *server.MCPServer, tool string, args map[string]any) *mcp.CallToolResult {
	msg, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args},
	})
	out, _ := json.Marshal(s.HandleMessage(context.Background(), msg))
	var resp struct {
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(out, &resp)
	res, _ := mcp.ParseCallToolResult(&resp.Result)
	return res
}

func quietDefault() []server.ToolHandlerMiddleware {
	l := slog.New(slog.DiscardHandler)
	return middleware.Default(
		middleware.WithEnvelopeOptions(envelope.WithLogger(l)),
		middleware.WithRecoverOptions(recover.WithLogger(l)),
	)
}

// A sentinel gets its own hint; other failures of the same code get the
// code's hint. The defaults follow.
func Example() {
	errSessionExpired := errors.New("session expired")

	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(quietDefault()...)
	s.Use(hints.Middleware(
		hints.For("shop_order",
			hints.OnErrorIs(errSessionExpired, hints.Call("shop_authenticate", "with your API key, then retry")),
			hints.OnError(envelope.AuthenticationFailed, hints.Text("Ask the user to check the shop's API key.")),
		),
	))
	s.AddTool(mcp.NewTool("shop_order", mcp.WithString("token")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.GetString("token", "") == "old" {
			return nil, envelope.Wrap(envelope.AuthenticationFailed, errSessionExpired)
		}
		return nil, envelope.New(envelope.AuthenticationFailed, "invalid API key")
	})
	s.AddTool(mcp.NewTool("shop_authenticate"), okHandler)

	for _, token := range []string{"old", "forged"} {
		env, _ := envelope.FromResult(send(s, "shop_order", map[string]any{"token": token}))
		fmt.Printf("%s: %q\n", env.Message, env.NextSteps)
	}
	// Output:
	// session expired: ["Call shop_authenticate with your API key, then retry." "Re-authenticate to obtain a fresh session or credentials, then retry the call."]
	// invalid API key: ["Ask the user to check the shop's API key." "Re-authenticate to obtain a fresh session or credentials, then retry the call."]
}

// The seed's execute_query: the next steps depend on what the query
// returned, and the next page is computed from the request's own page.
func ExampleOnSuccessFunc() {
	const pageSize = 10
	s := server.NewMCPServer("db", "1.0.0")
	s.Use(quietDefault()...)
	s.Use(hints.Middleware(hints.For("execute_query",
		hints.OnSuccessFunc(func(_ context.Context, req mcp.CallToolRequest, res *mcp.CallToolResult) []hints.Step {
			total, page := req.GetInt("total", 0), req.GetInt("page", 1)
			switch {
			case total == 0:
				return []hints.Step{hints.Call("get_schema", "to verify table and column names")}
			case total > page*pageSize:
				return []hints.Step{hints.Call("execute_query", "with page=%d to continue", page+1)}
			default:
				return []hints.Step{hints.Call("analyze_query_results", "to get insights on this data")}
			}
		}),
		hints.Mentions("get_schema", "analyze_query_results"),
	)))
	s.AddTool(mcp.NewTool("execute_query", mcp.WithNumber("total"), mcp.WithNumber("page")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(fmt.Sprintf("%d rows in total", req.GetInt("total", 0))), nil
	})
	s.AddTool(mcp.NewTool("get_schema"), okHandler)
	s.AddTool(mcp.NewTool("analyze_query_results"), okHandler)

	for _, args := range []map[string]any{{"total": 0}, {"total": 25, "page": 2}, {"total": 25, "page": 3}} {
		res := send(s, "execute_query", args)
		fmt.Println(res.Meta.AdditionalFields[hints.MetaKey])
	}
	last := send(s, "execute_query", map[string]any{"total": 25, "page": 2}).Content
	fmt.Println(last[len(last)-1].(mcp.TextContent).Text)
	// Output:
	// [Call get_schema to verify table and column names.]
	// [Call execute_query with page=3 to continue.]
	// [Call analyze_query_results to get insights on this data.]
	// Next steps:
	// - Call execute_query with page=3 to continue.
}

// ReplaceDefaults drops the code's generic advice where the tool's own
// applies.
func ExampleReplaceDefaults() {
	s := server.NewMCPServer("shop", "1.0.0")
	s.Use(quietDefault()...)
	s.Use(hints.Middleware(hints.For("shop_cancel",
		hints.OnError(envelope.AccessDenied, hints.Call("shop_whoami", "to see who is signed in: only an order's owner may cancel it")),
		hints.ReplaceDefaults(),
	)))
	s.AddTool(mcp.NewTool("shop_cancel"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, envelope.New(envelope.AccessDenied, "not your order")
	})
	s.AddTool(mcp.NewTool("shop_whoami"), okHandler)
	env, _ := envelope.FromResult(send(s, "shop_cancel", nil))
	fmt.Printf("%q\n", env.NextSteps)
	// Output:
	// ["Call shop_whoami to see who is signed in: only an order's owner may cancel it."]
}

// Check proves, in a test or at startup, that every tool a hint names
// exists.
func ExampleCheck() {
	s := server.NewMCPServer("shop", "1.0.0")
	s.AddTool(mcp.NewTool("shop_order"), okHandler)
	s.AddTool(mcp.NewTool("shop_search"), okHandler)

	err := hints.Check(s,
		hints.For("shop_order",
			hints.OnError(envelope.NotFound, hints.Call("shop_search", "to find the order's ID")),
			hints.OnError(envelope.AuthenticationFailed, hints.Call("shop_login", "with your API key")),
		),
	)
	fmt.Println(err)
	// Output:
	// hints: hints of tool "shop_order" name unknown tool "shop_login"
}

func ExampleCall() {
	fmt.Println(hints.Call("shop_authenticate", "with your API key, then retry"))
	fmt.Println(hints.Call("execute_query", "with page=%d to continue", 3).Tool())
	// Output:
	// Call shop_authenticate with your API key, then retry.
	// execute_query
}
