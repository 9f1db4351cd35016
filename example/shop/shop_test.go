package shop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/example/shop"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

func open(t *testing.T) *shop.Store {
	t.Helper()
	st, err := shop.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// The database, not a string check, refuses writes: statements that a
// keyword filter would miss are refused too, and the data is intact.
func TestQueryIsReadOnlyByTheDatabase(t *testing.T) {
	t.Parallel()
	st := open(t)
	ctx := context.Background()
	for _, q := range []string{
		"DELETE FROM products",
		"INSERT INTO categories VALUES ('x', 'y')",
		"UPDATE products SET price_cents = 0",
		"DROP TABLE orders",
		"PRAGMA query_only = 0; DELETE FROM products",
		"WITH x AS (SELECT 1) DELETE FROM products",
		"CREATE TABLE t (x)",
	} {
		if _, err := st.Query(ctx, q, 1, 10); !shop.IsReadOnly(err) {
			t.Errorf("%q: err = %v, want the database's read-only refusal", q, err)
		}
	}
	for _, q := range []string{"ATTACH DATABASE 'file:/tmp/mcpguard-shop-test.db' AS x", "VACUUM INTO '/tmp/mcpguard-shop-test.db'"} {
		if _, err := st.Query(ctx, q, 1, 10); err == nil {
			t.Errorf("%q succeeded", q)
		}
	}
	p, err := st.Query(ctx, "SELECT count(*) AS n FROM products", 1, 10)
	if err != nil || p.Rows[0]["n"] != int64(19) {
		t.Fatalf("catalog changed: %v %v", p, err)
	}
}

func TestQueryPaginates(t *testing.T) {
	t.Parallel()
	st := open(t)
	p, err := st.Query(context.Background(), "SELECT id FROM products ORDER BY id", 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	if p.Total != 19 || len(p.Rows) != 4 || p.HasMore || p.Rows[0]["id"] != "p-4004" {
		t.Fatalf("page 4 = %+v", p)
	}
	steps := shop.QueryNextSteps(shop.Page{Total: 19, Page: 1, PageSize: 5, Rows: make([]map[string]any, 5), HasMore: true})
	if len(steps) != 1 || steps[0].Tool() != shop.ToolQuery || steps[0].String() != "Call shop_query with page=2 to continue (5 of 19 rows returned so far)." {
		t.Fatalf("more-rows steps = %v", steps)
	}
	if steps := shop.QueryNextSteps(shop.Page{}); steps[1].Tool() != shop.ToolGetSchema {
		t.Fatalf("no-rows steps = %v", steps)
	}
}

func TestEveryToolAHintNamesExists(t *testing.T) {
	t.Parallel()
	s := shop.NewServer(open(t), shop.WithPanicTool())
	if err := hints.Check(s, shop.Hints()...); err != nil {
		t.Fatal(err)
	}
}

func TestWireOutcomes(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	srv := middlewaretest.FromServer(t, shop.NewServer(open(t), shop.WithPanicTool(), shop.WithClock(clock), shop.WithLogger(quiet)))

	srv.CallTool(shop.ToolQuery, map[string]any{"sql": "SELECT * FROM users"}).
		ExpectError(envelope.ExecutionFailed).ExpectMessage("no such table: users").ExpectNextStep("Call shop_get_schema").NoLeak()
	srv.CallTool(shop.ToolQuery, map[string]any{"sql": "DELETE FROM products"}).
		ExpectError(envelope.AccessDenied).ExpectNextStep("only reads")
	srv.CallTool(shop.ToolGetProduct, map[string]any{"id": "p-9999"}).
		ExpectError(envelope.NotFound).ExpectNextStep("Call shop_search")
	srv.CallTool(shop.ToolGetProduct, map[string]any{"id": "../../etc/passwd"}).
		ExpectError(envelope.ValidationError).ExpectField("id", "pattern")
	srv.CallTool(shop.ToolSearch, map[string]any{"category": "Toys", "limit": 51}).
		ExpectError(envelope.ValidationError).ExpectField("category", "oneof").ExpectField("limit", "max")
	srv.CallTool(shop.ToolDebugPanic, nil).ExpectError(envelope.InternalError).NoLeak(shop.PanicSecret)
	// The legacy tool declares its days as an enum: the chain enforces it.
	srv.CallTool(shop.ToolStoreHours, map[string]any{"day": "caturday"}).ExpectError(envelope.ValidationError).ExpectField("day", "oneof")

	res := srv.CallTool(shop.ToolAuthenticate, map[string]any{"username": "alice", "api_key": "demo-key-alice"}).ExpectSuccess()
	var out struct {
		Token string `json:"session_token"`
	}
	// Success hints follow the JSON as a second text item.
	if err := json.Unmarshal([]byte(firstLine(res.Text())), &out); err != nil || out.Token == "" {
		t.Fatalf("no session token in %q", res.Text())
	}
	// The hint is in _meta and in the text, and the tool's own output
	// (the first text item) does not hold it: it comes from the hints layer.
	const step = "Call shop_sales_report with this session_token"
	res.ExpectNextStep(step)
	if steps := successSteps(res); len(steps) != 1 || !strings.HasPrefix(steps[0], step) || strings.Contains(firstLine(res.Text()), "shop_sales_report") {
		t.Errorf("authenticate: _meta steps %q, output %q", steps, firstLine(res.Text()))
	}
	// The report itself has no success hint; its figures are its output.
	report := srv.CallTool(shop.ToolSalesReport, map[string]any{"session_token": out.Token, "month": "2025-03"}).ExpectSuccess()
	if !strings.Contains(report.Text(), `"revenue_cents":35394`) || successSteps(report) != nil {
		t.Errorf("report: %s", report.Raw)
	}
	now = now.Add(31 * time.Minute) // the session expires
	srv.CallTool(shop.ToolSalesReport, map[string]any{"session_token": out.Token, "month": "2025-03"}).
		ExpectError(envelope.AuthenticationFailed).ExpectNextStep("Call shop_authenticate").NoLeak(out.Token)
	srv.CallTool(shop.ToolAuthenticate, map[string]any{"username": "alice", "api_key": "nope"}).
		ExpectError(envelope.AuthenticationFailed).NoLeak("demo-key-alice")
}

// successSteps returns the next steps the hints layer put under _meta.
func successSteps(r *middlewaretest.Result) []string {
	if r.CallResult == nil || r.CallResult.Meta == nil {
		return nil
	}
	var out []string
	switch v := r.CallResult.Meta.AdditionalFields[hints.MetaKey].(type) {
	case []any:
		for _, s := range v {
			out = append(out, fmt.Sprint(s))
		}
	case []string:
		out = v
	}
	return out
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}

// Without the chain, the same failures are JSON-RPC errors the model
// never sees: what the demo contrasts.
func TestWithoutGuardFailuresAreProtocolErrors(t *testing.T) {
	t.Parallel()
	srv := middlewaretest.FromServer(t, shop.NewServer(open(t), shop.WithoutGuard()))
	srv.CallTool(shop.ToolQuery, map[string]any{"sql": "SELECT * FROM users"}).ExpectProtocolError(-32603)
	srv.CallTool(shop.ToolGetProduct, map[string]any{"id": "p-9999"}).ExpectProtocolError(-32603)
}

// Every product goes out through validate.StructuredHandler as
// structuredContent with its JSON as text, and optional search members
// sent as null or zero mean "not set", as the package doc of validate
// says.
func TestStructuredResultsAndOptionalMembers(t *testing.T) {
	t.Parallel()
	srv := middlewaretest.FromServer(t, shop.NewServer(open(t), shop.WithLogger(quiet)))
	st := open(t)
	p, err := st.Query(context.Background(), "SELECT id FROM products ORDER BY id", 1, 100)
	if err != nil || len(p.Rows) != 19 {
		t.Fatalf("catalog: %v %v", p, err)
	}
	for _, row := range p.Rows {
		id := row["id"].(string)
		res := srv.CallTool(shop.ToolGetProduct, map[string]any{"id": id}).ExpectSuccess()
		var got shop.Product
		if err := json.Unmarshal(res.StructuredContent(), &got); err != nil || got.ID != id {
			t.Errorf("%s: structuredContent %s", id, res.StructuredContent())
		}
		if firstLine(res.Text()) != string(res.StructuredContent()) {
			t.Errorf("%s: text %q is not the structured JSON %s", id, res.Text(), res.StructuredContent())
		}
	}
	for _, args := range []string{`{}`, `{"query":null,"category":"","max_price_cents":0,"limit":null}`, `{"query":"","limit":0}`} {
		res := srv.CallTool(shop.ToolSearch, json.RawMessage(args)).ExpectSuccess()
		var out struct {
			Count int `json:"count"`
		}
		if err := json.Unmarshal([]byte(firstLine(res.Text())), &out); err != nil || out.Count != 10 {
			t.Errorf("%s: %q, want the default 10 products", args, res.Text())
		}
	}
}
