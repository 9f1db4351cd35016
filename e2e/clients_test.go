package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// panicSecret is the password inside the panic tool's panic value
// (shop.PanicSecret; e2e imports nothing from the example).
const panicSecret = "s3cr3t-db-pass"

func TestMCPGoClientOverStdio(t *testing.T) {
	t.Parallel()
	forEachFront(t, testMCPGoClientOverStdio)
}

func testMCPGoClientOverStdio(t *testing.T, f front) {
	bin := shopServer(t)
	var cmd *exec.Cmd
	c, err := client.NewStdioMCPClientWithOptions(bin, nil, append([]string{"-panic-tool"}, f.args...),
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd = exec.CommandContext(ctx, command, args...)
			cmd.Env = append(cmd.Environ(), env...)
			return cmd, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	exerciseShop(t, c, f.protocol)
	// Closing stdin ends the server; a crash or a non-zero exit would be
	// Close's error.
	if err := c.Close(); err != nil {
		t.Fatalf("shop-server did not exit cleanly: %v", err)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("shop-server exit state: %v", cmd.ProcessState)
	}
}

func TestMCPGoClientOverStreamableHTTP(t *testing.T) {
	t.Parallel()
	forEachFront(t, testMCPGoClientOverStreamableHTTP)
}

func testMCPGoClientOverStreamableHTTP(t *testing.T, f front) {
	p := startHTTP(t, append([]string{"-panic-tool"}, f.args...)...)
	c, err := client.NewStreamableHttpClient(p.url)
	if err != nil {
		t.Fatal(err)
	}
	exerciseShop(t, c, f.protocol)
	if err := c.Close(); err != nil {
		t.Errorf("closing the client: %v", err)
	}
	if !p.alive() {
		t.Fatalf("shop-server died: %v\n%s", p.err, p.log())
	}
	p.stop(t)
}

// shopCase is one call and what the agent must receive.
type shopCase struct {
	name     string
	tool     string
	args     map[string]any
	code     envelope.Code // "" for success
	message  string        // substring of the envelope's message
	text     string        // substring of the tool's own output (success)
	nextStep string        // substring of a next step: the envelope's, or a success hint's, never the tool's own output
	field    string        // a field error the envelope must list
}

func shopCases(session, clerk string) []shopCase {
	return []shopCase{
		{name: "search", tool: "shop_search", args: map[string]any{"query": "cable", "limit": 5},
			nextStep: "Call shop_get_product"},
		{name: "search no match", tool: "shop_search", args: map[string]any{"query": "unicorn"},
			nextStep: "again with fewer words"},
		{name: "search enum and bound", tool: "shop_search", args: map[string]any{"category": "Electronics", "limit": 9999},
			code: envelope.ValidationError, field: "category"},
		{name: "search wrong type", tool: "shop_search", args: map[string]any{"limit": "ten"},
			code: envelope.ValidationError, field: "limit"},
		{name: "search unknown field", tool: "shop_search", args: map[string]any{"colour": "red"},
			code: envelope.ValidationError, field: "colour"},
		{name: "search huge string", tool: "shop_search", args: map[string]any{"query": strings.Repeat("x", 200_000)},
			code: envelope.ValidationError, field: "query"},
		{name: "get product", tool: "shop_get_product", args: map[string]any{"id": "p-1001"},
			text: `"id":"p-1001"`, nextStep: "Call shop_search with this product's category"},
		{name: "get product traversal", tool: "shop_get_product", args: map[string]any{"id": "../../etc/passwd"},
			code: envelope.ValidationError, field: "id"},
		{name: "get product missing", tool: "shop_get_product", args: map[string]any{"id": "p-9999"},
			code: envelope.NotFound, message: "p-9999", nextStep: "Call shop_search"},
		{name: "schema", tool: "shop_get_schema", args: nil, text: "products"},
		{name: "query missing table", tool: "shop_query", args: map[string]any{"sql": "SELECT * FROM users"},
			code: envelope.ExecutionFailed, message: "no such table: users", nextStep: "Call shop_get_schema"},
		{name: "query write refused", tool: "shop_query", args: map[string]any{"sql": "DELETE FROM products"},
			code: envelope.AccessDenied, message: "readonly", nextStep: "only reads"},
		{name: "query pragma cannot unlock", tool: "shop_query", args: map[string]any{"sql": "PRAGMA query_only = 0; DROP TABLE orders"},
			code: envelope.AccessDenied},
		{name: "query attach refused", tool: "shop_query", args: map[string]any{"sql": "ATTACH DATABASE 'file:/tmp/mcpguard-e2e.db' AS x"},
			code: envelope.ExecutionFailed, message: "attached"},
		{name: "query more rows", tool: "shop_query", args: map[string]any{"sql": "SELECT id FROM products ORDER BY id", "page_size": 5},
			nextStep: "page=2"},
		{name: "query no rows", tool: "shop_query", args: map[string]any{"sql": "SELECT * FROM products WHERE stock < 0"},
			nextStep: "Call shop_get_schema"},
		{name: "query all rows", tool: "shop_query", args: map[string]any{"sql": "SELECT name FROM categories"},
			nextStep: "all the rows"},
		{name: "authenticate bad key", tool: "shop_authenticate", args: map[string]any{"username": "alice", "api_key": "wrong"},
			code: envelope.AuthenticationFailed, nextStep: "do not guess"},
		{name: "report bad token", tool: "shop_sales_report", args: map[string]any{"session_token": "sess_forged", "month": "2025-03"},
			code: envelope.AuthenticationFailed, nextStep: "Call shop_authenticate"},
		{name: "report clerk", tool: "shop_sales_report", args: map[string]any{"session_token": clerk, "month": "2025-03"},
			code: envelope.AccessDenied, nextStep: "manager"},
		{name: "report bad month", tool: "shop_sales_report", args: map[string]any{"session_token": session, "month": "March"},
			code: envelope.ValidationError, field: "month"},
		{name: "report", tool: "shop_sales_report", args: map[string]any{"session_token": session, "month": "2025-03"},
			text: "revenue_cents"},
		// The legacy tool declares its days as an enum, which the chain
		// enforces before the handler runs.
		{name: "legacy tool error", tool: "shop_store_hours", args: map[string]any{"day": "someday"},
			code: envelope.ValidationError, field: "day"},
		{name: "legacy tool", tool: "shop_store_hours", args: map[string]any{"day": "sunday"}, text: "closed"},
		{name: "panic", tool: "shop_debug_panic", args: nil,
			code: envelope.InternalError, message: "Incident ID", nextStep: "report incident"},
	}
}

// exerciseShop runs every case through c and checks what arrives.
func exerciseShop(t *testing.T, c *client.Client, protocol string) {
	t.Helper()
	ctx := withTimeout(t, 5*time.Minute) // a hang guard for a dozen calls
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = protocol
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpguard-e2e", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	checkToolList(t, ctx, c)

	session := login(t, ctx, c, "alice", "demo-key-alice")
	clerk := login(t, ctx, c, "bob", "demo-key-bob")
	for _, tc := range shopCases(session, clerk) {
		t.Run(tc.name, func(t *testing.T) {
			req := mcp.CallToolRequest{}
			req.Params.Name = tc.tool
			req.Params.Arguments = tc.args
			res, err := c.CallTool(ctx, req)
			if err != nil {
				t.Fatalf("a tool outcome must be a result, got a protocol error: %v", err)
			}
			raw, _ := json.Marshal(res)
			if leaks := middlewaretest.Leaks(raw, panicSecret, "demo-key-alice"); leaks != nil {
				t.Errorf("leaks %v: %s", leaks, raw)
			}
			checkOutcome(t, tc, res, string(raw))
		})
	}

	// Protocol errors stay protocol errors.
	req := mcp.CallToolRequest{}
	req.Params.Name = "shop_no_such_tool"
	if _, err := c.CallTool(ctx, req); err == nil {
		t.Error("an unknown tool must be a JSON-RPC error")
	}
}

func checkOutcome(t *testing.T, tc shopCase, res *mcp.CallToolResult, raw string) {
	t.Helper()
	if tc.code == "" {
		if res.IsError {
			t.Fatalf("want success, got %s", raw)
		}
		checkSuccess(t, tc, res, raw)
		return
	}
	env, ok := envelope.FromResult(res)
	if !ok {
		t.Fatalf("want a %s envelope, got %s", tc.code, raw)
	}
	if env.ErrorType != tc.code || env.Tool != tc.tool || env.Success {
		t.Errorf("envelope = %s/%s, want %s/%s: %s", env.ErrorType, env.Tool, tc.code, tc.tool, raw)
	}
	if !strings.Contains(env.Message, tc.message) {
		t.Errorf("message %q lacks %q", env.Message, tc.message)
	}
	if tc.nextStep != "" && !containsAny(env.NextSteps, tc.nextStep) {
		t.Errorf("next_steps %q lack %q", env.NextSteps, tc.nextStep)
	}
	if tc.field != "" {
		found := false
		for _, f := range env.Fields {
			found = found || f.Field == tc.field
		}
		if !found {
			t.Errorf("fields %+v lack %q", env.Fields, tc.field)
		}
	}
	if tc.code == envelope.InternalError && env.IncidentID == "" {
		t.Errorf("internal_error without incident_id: %s", raw)
	}
	if (tc.tool == "shop_get_product" || tc.tool == "shop_sales_report") && res.StructuredContent != nil {
		t.Errorf("a tool with an output schema must not get structuredContent on error: %s", raw)
	}
}

func checkToolList(t *testing.T, ctx context.Context, c *client.Client) {
	t.Helper()
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	tools := map[string]mcp.Tool{}
	for _, tool := range list.Tools {
		if !strings.HasPrefix(tool.Name, "shop_") {
			t.Errorf("tool %q is not namespaced", tool.Name)
		}
		if len(tool.Description) < 60 {
			t.Errorf("tool %q has no intent-oriented description: %q", tool.Name, tool.Description)
		}
		tools[tool.Name] = tool
	}
	schema := func(tool string) map[string]any {
		b, _ := json.Marshal(tools[tool].InputSchema)
		if len(tools[tool].RawInputSchema) > 0 {
			b = tools[tool].RawInputSchema
		}
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return m
	}
	prop := func(tool, name string) map[string]any {
		props, _ := schema(tool)["properties"].(map[string]any)
		p, _ := props[name].(map[string]any)
		return p
	}
	checks := []struct {
		tool, prop, key string
		want            any
	}{
		{"shop_search", "category", "enum", []any{"books", "electronics", "garden", "kitchen", "toys"}},
		{"shop_search", "limit", "minimum", 1.0},
		{"shop_search", "limit", "maximum", 50.0},
		{"shop_search", "query", "maxLength", 100.0},
		{"shop_get_product", "id", "pattern", "^(?:p-[0-9]{4})$"},
		{"shop_query", "sql", "maxLength", 2000.0},
		{"shop_query", "page_size", "maximum", 100.0},
	}
	for _, ck := range checks {
		got := prop(ck.tool, ck.prop)[ck.key]
		if fmt.Sprint(got) != fmt.Sprint(ck.want) {
			t.Errorf("%s.%s.%s = %v, want %v", ck.tool, ck.prop, ck.key, got, ck.want)
		}
	}
	if tools["shop_get_product"].OutputSchema.Type != "object" {
		t.Errorf("shop_get_product declares no output schema")
	}
}

func login(t *testing.T, ctx context.Context, c *client.Client, user, key string) string {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = "shop_authenticate"
	req.Params.Arguments = map[string]any{"username": user, "api_key": key}
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("login %s: %v %+v", user, err, res)
	}
	var out struct {
		Token string `json:"session_token"`
	}
	if err := json.Unmarshal([]byte(firstText(res)), &out); err != nil || out.Token == "" {
		t.Fatalf("login %s: no token in %q", user, firstText(res))
	}
	return out.Token
}

func firstText(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			return tc.Text
		}
	}
	return ""
}

// checkSuccess checks the tool's own output for tc.text and the success
// hints for tc.nextStep, in both places the hints layer puts them: under
// _meta's hints.MetaKey, for programs, and as a last "Next steps:" text
// item, for models. A next step the tool's own output already contains
// would prove nothing, so that fails too.
func checkSuccess(t *testing.T, tc shopCase, res *mcp.CallToolResult, raw string) {
	t.Helper()
	own, hintText, steps := splitSuccess(res)
	if !strings.Contains(own, tc.text) {
		t.Errorf("the tool's output lacks %q: %s", tc.text, raw)
	}
	if tc.nextStep == "" {
		return
	}
	if strings.Contains(own, tc.nextStep) {
		t.Errorf("the tool's own output contains %q, so finding it proves no hint: %s", tc.nextStep, raw)
	}
	if !containsAny(steps, tc.nextStep) {
		t.Errorf("_meta[%q] = %q lacks %q", hints.MetaKey, steps, tc.nextStep)
	}
	if !strings.Contains(hintText, tc.nextStep) {
		t.Errorf("the Next steps text item %q lacks %q", hintText, tc.nextStep)
	}
}

// splitSuccess returns a success result's own text, its hint text item
// and the steps under _meta.
func splitSuccess(res *mcp.CallToolResult) (own, hintText string, steps []string) {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			parts = append(parts, tc.Text)
		}
	}
	if n := len(parts); n > 1 && strings.HasPrefix(parts[n-1], "Next steps:") {
		hintText, parts = parts[n-1], parts[:n-1]
	}
	if res.Meta != nil {
		if list, ok := res.Meta.AdditionalFields[hints.MetaKey].([]any); ok {
			for _, s := range list {
				steps = append(steps, fmt.Sprint(s))
			}
		}
	}
	return strings.Join(parts, "\n"), hintText, steps
}

func containsAny(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
