package hints_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// QueryResult is execute_query's output, as in the seed article.
type QueryResult struct {
	Rows       []map[string]any `json:"rows"`
	TotalCount int              `json:"total_count"`
	Page       int              `json:"page"`
}

const maxRows = 10

// executeQuery pretends a table holds "total" rows and returns page "page".
func executeQuery(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	total, page := req.GetInt("total", 0), req.GetInt("page", 1)
	if page < 1 {
		return nil, envelope.New(envelope.ValidationError, "page must be at least 1")
	}
	out := QueryResult{Rows: []map[string]any{}, TotalCount: total, Page: page}
	for i := (page - 1) * maxRows; i < total && i < page*maxRows; i++ {
		out.Rows = append(out.Rows, map[string]any{"id": i + 1})
	}
	b, _ := json.Marshal(out)
	return mcp.NewToolResultStructured(out, string(b)), nil
}

// queryRule is the seed's three-way next_steps, declared instead of
// written inside the handler.
var queryRule = hints.For("execute_query",
	hints.OnSuccessFunc(func(_ context.Context, req mcp.CallToolRequest, res *mcp.CallToolResult) []hints.Step {
		r, ok := res.StructuredContent.(QueryResult)
		if !ok {
			return nil
		}
		page := req.GetInt("page", 1)
		switch {
		case len(r.Rows) == 0:
			return []hints.Step{
				hints.Text("No rows returned: try rephrasing the question with different filters."),
				hints.Call("get_schema", "to verify table and column names"),
				hints.Call("explain_query", "to understand why the query returned nothing"),
			}
		case r.TotalCount > (page-1)*maxRows+len(r.Rows):
			return []hints.Step{
				hints.Call("execute_query", "with page=%d to continue", page+1),
				hints.Call("analyze_query_results", "for a summary of these rows"),
				hints.Call("execute_query_with_export", "to download all pages as CSV or Excel"),
			}
		default:
			return []hints.Step{
				hints.Call("analyze_query_results", "to get insights on this data"),
				hints.Text("Ask a follow-up question to drill into a specific row or pattern."),
				hints.Call("execute_query_with_export", "to export the results"),
			}
		}
	}),
	hints.OnError(envelope.ValidationError, hints.Call("execute_query", "with page=1")),
	hints.Mentions("get_schema", "explain_query", "analyze_query_results", "execute_query_with_export"),
)

func newQueryServer(tb testing.TB, o order, outputSchema bool) *middlewaretest.Server {
	tb.Helper()
	s := server.NewMCPServer("db", "1.0.0", server.WithToolCapabilities(false), server.WithOutputSchemaValidation())
	o.apply(s, hints.Middleware(queryRule), defaultChain())
	opts := []mcp.ToolOption{mcp.WithNumber("total"), mcp.WithNumber("page")}
	if outputSchema {
		opts = append(opts, mcp.WithOutputSchema[QueryResult]())
	}
	s.AddTool(mcp.NewTool("execute_query", opts...), executeQuery)
	for _, name := range []string{"get_schema", "explain_query", "analyze_query_results", "execute_query_with_export"} {
		s.AddTool(mcp.NewTool(name), okHandler)
	}
	return middlewaretest.FromServer(tb, s)
}

func TestSeedExecuteQueryThreeWays(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		total, page int
		steps       []string
	}{
		{"no rows", 0, 1, []string{
			"No rows returned: try rephrasing the question with different filters.",
			"Call get_schema to verify table and column names.",
			"Call explain_query to understand why the query returned nothing.",
		}},
		{"more rows, next page from the request's own page", 25, 2, []string{
			"Call execute_query with page=3 to continue.",
			"Call analyze_query_results for a summary of these rows.",
			"Call execute_query_with_export to download all pages as CSV or Excel.",
		}},
		{"more rows, first page", 25, 1, []string{
			"Call execute_query with page=2 to continue.",
			"Call analyze_query_results for a summary of these rows.",
			"Call execute_query_with_export to download all pages as CSV or Excel.",
		}},
		{"everything returned", 25, 3, []string{
			"Call analyze_query_results to get insights on this data.",
			"Ask a follow-up question to drill into a specific row or pattern.",
			"Call execute_query_with_export to export the results.",
		}},
	}
	for _, o := range orders {
		for _, schema := range []bool{true, false} {
			srv := newQueryServer(t, o, schema)
			for _, tc := range cases {
				t.Run(fmt.Sprintf("%s/outputSchema=%v/%s", o.name, schema, tc.name), func(t *testing.T) {
					r := srv.CallTool("execute_query", map[string]any{"total": tc.total, "page": tc.page}).ExpectSuccess()
					res := r.CallResult
					require.Len(t, res.Content, 2, "the handler's text, then the steps")
					want := "Next steps:"
					for _, s := range tc.steps {
						want += "\n- " + s
					}
					assert.Equal(t, want, res.Content[1].(mcp.TextContent).Text, "last content item, for the model")
					assert.Equal(t, tc.steps, metaSteps(t, r.Raw), "_meta, for programs")

					// The structured content is the handler's, byte for byte, and
					// the server's output validation (on) accepted it.
					var got QueryResult
					require.NoError(t, json.Unmarshal(r.StructuredContent(), &got))
					assert.Equal(t, tc.total, got.TotalCount)
					assert.Equal(t, tc.page, got.Page)
					assert.JSONEq(t, res.Content[0].(mcp.TextContent).Text, string(r.StructuredContent()))
				})
			}
			t.Run(o.name+"/error keeps its hint", func(t *testing.T) {
				r := srv.CallTool("execute_query", map[string]any{"total": 5, "page": 0}).ExpectError(envelope.ValidationError)
				assert.Equal(t, "Call execute_query with page=1.", r.Envelope.NextSteps[0])
				if schema {
					assert.Nil(t, r.StructuredContent(), "no envelope as structuredContent for a tool with an output schema")
				}
			})
			// Arguments of the wrong types never reach the handler: the
			// default chain enforces the tool's declared schema (numbers),
			// with a field each. Hints outside the chain add their step to
			// that validation_error; hints inside it are not reached, and the
			// envelope keeps the code's default step.
			t.Run(o.name+"/wrong argument types", func(t *testing.T) {
				r := srv.CallTool("execute_query", json.RawMessage(`{"total":"lots","page":{"deep":[[[1]]]}}`)).
					ExpectError(envelope.ValidationError).ExpectField("total", "type").ExpectField("page", "type")
				if o.name == "hints outside Default" {
					assert.Equal(t, "Call execute_query with page=1.", r.Envelope.NextSteps[0])
				} else {
					assert.Equal(t, envelope.DefaultNextSteps(envelope.ValidationError), r.Envelope.NextSteps)
				}
			})
		}
	}
}

// metaSteps returns the steps under hints.MetaKey in the raw response.
func metaSteps(t *testing.T, raw []byte) []string {
	t.Helper()
	var resp struct {
		Result struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(raw, &resp))
	v, ok := resp.Result.Meta[hints.MetaKey]
	if !ok {
		return nil
	}
	var steps []string
	require.NoError(t, json.Unmarshal(v, &steps))
	return steps
}

func TestCheckAcceptsSeedRule(t *testing.T) {
	t.Parallel()
	srv := newQueryServer(t, orders[0], true)
	assert.NoError(t, hints.Check(srv.MCPServer(), queryRule))
}

func TestStaticSuccessHintsDoNotMutateTheHandlersResult(t *testing.T) {
	t.Parallel()
	shared := &mcp.CallToolResult{
		Result:  mcp.Result{Meta: mcp.NewMetaFromMap(map[string]any{"com.example/trace": "t1", hints.MetaKey: []any{"Handler's own step."}})},
		Content: []mcp.Content{mcp.NewTextContent("done")},
	}
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return shared, nil }
	rule := hints.For("report", hints.OnSuccess(
		hints.Call("report_export", "to download the report as PDF"),
		hints.Text("Handler's own step."),
	))
	for _, o := range orders {
		t.Run(o.name, func(t *testing.T) {
			s := server.NewMCPServer("r", "1.0.0")
			o.apply(s, hints.Middleware(rule), defaultChain())
			s.AddTool(mcp.NewTool("report"), h)
			s.AddTool(mcp.NewTool("report_export"), okHandler)
			srv := middlewaretest.FromServer(t, s)
			for range 3 {
				r := srv.CallTool("report", nil).ExpectSuccess()
				assert.Equal(t, "done\nNext steps:\n- Call report_export to download the report as PDF.\n- Handler's own step.", r.Text())
				assert.Equal(t, []string{"Call report_export to download the report as PDF.", "Handler's own step."}, metaSteps(t, r.Raw))
				assert.Equal(t, "t1", r.CallResult.Meta.AdditionalFields["com.example/trace"], "other _meta keys are kept")
				assert.Nil(t, r.StructuredContent())
			}
			assert.Len(t, shared.Content, 1, "the handler's result is copied, never changed")
			assert.Len(t, shared.Meta.AdditionalFields, 2)
			assert.Equal(t, []any{"Handler's own step."}, shared.Meta.AdditionalFields[hints.MetaKey])
		})
	}
}

func TestWithoutSuccessText(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("r", "1.0.0")
	s.Use(defaultChain()...)
	s.Use(hints.New([]hints.Rule{hints.For("report", hints.OnSuccess(hints.Call("report_export", "to download it")))}, hints.WithoutSuccessText()).Middleware())
	s.AddTool(mcp.NewTool("report"), okHandler)
	s.AddTool(mcp.NewTool("report_export"), okHandler)
	r := middlewaretest.FromServer(t, s).CallTool("report", nil).ExpectSuccess()
	assert.Equal(t, "ok", r.Text())
	assert.Equal(t, []string{"Call report_export to download it."}, metaSteps(t, r.Raw))
}

func TestCheck(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("shop", "1.0.0")
	for _, name := range []string{"shop_order", "shop_search"} {
		s.AddTool(mcp.NewTool(name), okHandler)
	}
	good := hints.For("shop_order", hints.OnError(envelope.NotFound, hints.Call("shop_search", "to find the order's ID")))
	require.NoError(t, hints.Check(s, good))

	err := hints.Check(s,
		good,
		hints.For("shop_order",
			hints.OnErrorIs(ErrSessionExpired, hints.Call("shop_authenticat", "with your API key")),
			hints.OnError(envelope.NotFound, hints.Call("shop_authenticat", "first"), hints.Text("Call nothing, this is text.")),
			hints.Mentions("shop_status"),
		),
		hints.For("shop_ordr", hints.OnSuccess(hints.Call("shop_search", "next"))),
	)
	require.Error(t, err)
	var refs []hints.ReferenceError
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var re *hints.ReferenceError
		require.ErrorAs(t, e, &re)
		refs = append(refs, *re)
	}
	assert.Equal(t, []hints.ReferenceError{
		{Rule: "shop_order", Tool: "shop_authenticat"},
		{Rule: "shop_order", Tool: "shop_status"},
		{Rule: "shop_ordr", Tool: "shop_ordr"},
	}, refs)
	assert.Contains(t, err.Error(), `hints of tool "shop_order" name unknown tool "shop_authenticat"`)
	assert.Contains(t, err.Error(), `rule for unknown tool "shop_ordr" never applies`)

	// The same against a client's tools/list, and through a Registry.
	reg := hints.New([]hints.Rule{good})
	assert.NoError(t, reg.CheckTools([]mcp.Tool{{Name: "shop_order"}, {Name: "shop_search"}}))
	assert.Error(t, reg.CheckTools([]mcp.Tool{{Name: "shop_order"}}))
	assert.NoError(t, reg.Check(s))
	assert.Error(t, hints.Check(nil, good), "a nil server has no tools")
	assert.Equal(t, []string{"shop_search"}, good.References())
}
