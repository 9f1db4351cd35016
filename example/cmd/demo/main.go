// Command demo shows, in process and with no setup, what an agent receives
// when an MCP tool fails: first from a plain mcp-go server, then from the
// same server with one added line, s.Use(middleware.Default()...), and then
// from the example shop server, whose failures come from a real database.
//
//	go run ./example/cmd/demo
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/example/shop"
	"github.com/mcpguard/mcpguard/middleware"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// dbPassword is the secret the third tool's error holds.
const dbPassword = "hunter2"

// The four handlers of part 1, as a team might write them today.
var cases = []struct {
	title string
	code  string
	h     server.ToolHandlerFunc
}{
	{"a success", `return mcp.NewToolResultText("order 42: shipped"), nil`,
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("order 42: shipped"), nil
		}},
	{"a sentinel error", `return nil, fmt.Errorf("order 42: %w", envelope.ErrNotFound)`,
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("order 42: %w", envelope.ErrNotFound)
		}},
	{"a raw error holding a DSN password", `return nil, err // dial postgres://orders:hunter2@db:5432/...`,
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("dial postgres://orders:" + dbPassword + "@db.internal:5432/orders: connection refused")
		}},
	{"a panic", `var m map[string]int; m["x"]++ // nil map write`,
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var m map[string]int
			//lint:ignore SA5000 the nil map write is the panic this case shows
			m["x"]++
			return nil, nil
		}},
}

func run(ctx context.Context, w io.Writer) error {
	p := &printer{w: w}
	p.title("mcpguard demo: what an agent receives when a tool fails")
	p.line("Part 1. One tool, four outcomes. \"plain\" is mcp-go with server.WithRecovery();")
	p.line("\"mcpguard\" is the same server plus s.Use(middleware.Default()...).")

	// The server log of the guarded server: internal errors and panics are
	// logged there in full, under the incident ID the agent receives.
	var serverLog strings.Builder
	logger := slog.New(slog.NewTextHandler(&serverLog, &slog.HandlerOptions{Level: slog.LevelError}))

	for i, c := range cases {
		tool := mcp.NewTool("orders_get", mcp.WithDescription("Get an order."))
		plain := server.NewMCPServer("plain", "1", server.WithRecovery())
		plain.AddTool(tool, c.h)
		guarded := server.NewMCPServer("guarded", "1")
		guarded.Use(middleware.Default(middleware.WithLogger(logger))...)
		guarded.AddTool(tool, c.h)

		p.section(fmt.Sprintf("1.%d  %s", i+1, c.title))
		p.line("    handler:  " + c.code)
		p.show("plain", callTool(ctx, plain, "orders_get", nil))
		p.show("mcpguard", callTool(ctx, guarded, "orders_get", nil))
	}
	p.blank()
	p.line("The server log, which no client sees, has the detail behind each incident_id:")
	for _, l := range strings.Split(strings.TrimSpace(serverLog.String()), "\n") {
		p.line("    " + shorten(l, 150))
	}

	if err := shopPart(ctx, p); err != nil {
		return err
	}
	p.blank()
	p.line("Done. Run the shop server itself with: go run ./example/cmd/shop-server")
	return p.err
}

func shopPart(ctx context.Context, p *printer) error {
	store, err := shop.Open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	s := shop.NewServer(store, shop.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))

	p.blank()
	p.title("Part 2. The example shop server: real SQLite errors, validation, hints")
	token := loginToken(ctx, s, "alice", "demo-key-alice")
	clerk := loginToken(ctx, s, "bob", "demo-key-bob")
	for _, c := range []struct {
		what string
		tool string
		args map[string]any
	}{
		{"a search (success next steps)", shop.ToolSearch, map[string]any{"query": "cable", "limit": 2}},
		{"a wrongly cased category and limit 9999", shop.ToolSearch, map[string]any{"category": "Electronics", "limit": 9999}},
		{"a path-traversal ID", shop.ToolGetProduct, map[string]any{"id": "../../etc/passwd"}},
		{"a product that does not exist", shop.ToolGetProduct, map[string]any{"id": "p-9999"}},
		{"SQL on a missing table", shop.ToolQuery, map[string]any{"sql": "SELECT * FROM users"}},
		{"SQL that writes", shop.ToolQuery, map[string]any{"sql": "DELETE FROM products"}},
		{"SQL with more rows than a page", shop.ToolQuery, map[string]any{"sql": "SELECT id, name FROM products ORDER BY id", "page_size": 5}},
		{"SQL with no rows", shop.ToolQuery, map[string]any{"sql": "SELECT * FROM products WHERE price_cents > 1000000"}},
		{"a report with a bad session token", shop.ToolSalesReport, map[string]any{"session_token": "sess_expired", "month": "2025-03"}},
		{"a report with a clerk's session", shop.ToolSalesReport, map[string]any{"session_token": clerk, "month": "2025-03"}},
		{"a report with a manager's session", shop.ToolSalesReport, map[string]any{"session_token": token, "month": "2025-03"}},
		{"the legacy tool's hand-made error", shop.ToolStoreHours, map[string]any{"day": "someday"}},
	} {
		p.section(fmt.Sprintf("%s %s", c.tool, mustJSON(c.args)))
		p.line("    (" + c.what + ")")
		p.show("mcpguard", callTool(ctx, s, c.tool, c.args))
	}
	return nil
}

func loginToken(ctx context.Context, s *server.MCPServer, user, key string) string {
	r := callTool(ctx, s, shop.ToolAuthenticate, map[string]any{"username": user, "api_key": key})
	var out struct {
		Token string `json:"session_token"`
	}
	if r.result != nil && len(r.result.Content) > 0 {
		if t, ok := mcp.AsTextContent(r.result.Content[0]); ok {
			_ = json.Unmarshal([]byte(t.Text), &out)
		}
	}
	return out.Token
}

// reply is what a client received for one call.
type reply struct {
	rpcErr *mcp.JSONRPCErrorDetails
	result *mcp.CallToolResult
	raw    string
	panic  any
}

var ids int

// callTool sends a tools/call through HandleMessage, the path every
// transport ends in, and decodes the JSON a client would read.
func callTool(ctx context.Context, s *server.MCPServer, name string, args map[string]any) (r reply) {
	ids++
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": ids, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	defer func() {
		if v := recover(); v != nil {
			r.panic = v
		}
	}()
	b, err := json.Marshal(s.HandleMessage(ctx, req))
	if err != nil {
		r.raw = err.Error()
		return r
	}
	r.raw = string(b)
	var resp struct {
		Result json.RawMessage          `json:"result"`
		Error  *mcp.JSONRPCErrorDetails `json:"error"`
	}
	_ = json.Unmarshal(b, &resp)
	r.rpcErr = resp.Error
	if resp.Error == nil {
		r.result, _ = mcp.ParseCallToolResult(&resp.Result)
	}
	return r
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(s string) {
	if p.err == nil {
		_, p.err = fmt.Fprintln(p.w, s)
	}
}
func (p *printer) blank()           { p.line("") }
func (p *printer) title(s string)   { p.line(s); p.line(strings.Repeat("=", len(s))) }
func (p *printer) section(s string) { p.blank(); p.line(s) }

// show prints what the agent's client gets: a JSON-RPC error (which the
// model typically never sees), or a result with its text.
func (p *printer) show(who string, r reply) {
	label := fmt.Sprintf("    %-9s ", who+":")
	switch {
	case r.panic != nil:
		p.line(label + "the panic escaped the server: the process would crash")
	case r.rpcErr != nil:
		p.line(label + fmt.Sprintf("JSON-RPC error %d, the model never sees it: %q", r.rpcErr.Code, r.rpcErr.Message))
	case r.result == nil:
		p.line(label + "undecodable response: " + r.raw)
	default:
		var texts []string
		for _, c := range r.result.Content {
			if t, ok := mcp.AsTextContent(c); ok {
				texts = append(texts, t.Text)
			}
		}
		kind := "result"
		if r.result.IsError {
			kind = "result, isError"
		}
		if env, ok := envelope.FromResult(r.result); ok {
			b, _ := json.MarshalIndent(env, "              ", "  ")
			p.line(label + kind + ", envelope:")
			p.line("              " + string(b))
			return
		}
		p.line(label + kind + ": " + shorten(strings.Join(texts, " | "), 400))
	}
}

func shorten(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func mustJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}
