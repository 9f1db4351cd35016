package hints_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/hints"
)

const maxRows = 10

type queryReq struct{ page int }

type queryRes struct{ rows, total int }

// queryRule is the seed article's three-way next steps of execute_query,
// declared instead of written inside the handler.
var queryRule = hints.For("execute_query",
	hints.OnSuccessFunc(func(_ context.Context, req queryReq, res *queryRes) []hints.Step {
		switch {
		case res.rows == 0:
			return []hints.Step{
				hints.Text("No rows returned: try rephrasing the question with different filters."),
				hints.Call("get_schema", "to verify table and column names"),
				hints.Call("explain_query", "to understand why the query returned nothing"),
			}
		case res.total > (req.page-1)*maxRows+res.rows:
			return []hints.Step{
				hints.Call("execute_query", "with page=%d to continue", req.page+1),
				hints.Call("analyze_query_results", "for a summary of these rows"),
			}
		default:
			return []hints.Step{
				hints.Call("analyze_query_results", "to get insights on this data"),
				hints.Text("Ask a follow-up question to drill into a specific row or pattern."),
			}
		}
	}),
	hints.OnError[queryReq, *queryRes](envelope.ValidationError, hints.Call("execute_query", "with page=1")),
	hints.Mentions[queryReq, *queryRes]("get_schema", "explain_query", "analyze_query_results"),
)

func TestSuccessFuncSeesRequestAndResult(t *testing.T) {
	t.Parallel()
	tl := hints.NewRegistry([]hints.Rule[queryReq, *queryRes]{queryRule}, nil).Lookup("execute_query")
	assert.True(t, tl.HasSuccessHints())
	for _, tc := range []struct {
		name  string
		req   queryReq
		res   queryRes
		steps []string
	}{
		{"no rows", queryReq{1}, queryRes{0, 0}, []string{
			"No rows returned: try rephrasing the question with different filters.",
			"Call get_schema to verify table and column names.",
			"Call explain_query to understand why the query returned nothing.",
		}},
		{"more rows", queryReq{2}, queryRes{10, 25}, []string{
			"Call execute_query with page=3 to continue.",
			"Call analyze_query_results for a summary of these rows.",
		}},
		{"everything", queryReq{3}, queryRes{5, 25}, []string{
			"Call analyze_query_results to get insights on this data.",
			"Ask a follow-up question to drill into a specific row or pattern.",
		}},
	} {
		steps, text := tl.Success(context.Background(), tc.req, &tc.res)
		assert.Equal(t, tc.steps, steps, tc.name)
		want := "Next steps:"
		for _, s := range tc.steps {
			want += "\n- " + s
		}
		assert.Equal(t, want, text, tc.name)
	}
	assert.NoError(t, hints.CheckNames([]string{"execute_query", "get_schema", "explain_query", "analyze_query_results"}, queryRule))
}

// Static success steps are computed once: trimmed, redacted and
// de-duplicated, the same on every call; mixed with a function, the
// static ones keep their place.
func TestSuccessSteps(t *testing.T) {
	t.Parallel()
	type ctxKey struct{}
	r := newReg([]rule{
		hints.For("report",
			hints.OnSuccess[shopReq, *shopRes](hints.Call("report_export", "to download the report as PDF"), hints.Text("  Share it.  ")),
			hints.OnSuccess[shopReq, *shopRes](hints.Text("Share it.")),
		),
		hints.For("mixed",
			hints.OnSuccess[shopReq, *shopRes](hints.Text("First.")),
			hints.OnSuccessFunc(func(ctx context.Context, req shopReq, res *shopRes) []hints.Step {
				return []hints.Step{hints.Text(fmt.Sprint(ctx.Value(ctxKey{}), " ", req.id, ": ", res.rows, " rows")), hints.Text("First.")}
			}),
			hints.OnSuccess[shopReq, *shopRes](hints.Text("Last.")),
		),
		hints.For("quiet", hints.OnSuccessFunc(func(context.Context, shopReq, *shopRes) []hints.Step { return nil })),
		hints.For("errors only", hints.OnError[shopReq, *shopRes](envelope.NotFound, hints.Text("Search."))),
	})
	for range 3 {
		steps, text := r.Lookup("report").Success(context.Background(), shopReq{}, nil)
		assert.Equal(t, []string{"Call report_export to download the report as PDF.", "Share it."}, steps)
		assert.Equal(t, "Next steps:\n- Call report_export to download the report as PDF.\n- Share it.", text)
	}
	ctx := context.WithValue(context.Background(), ctxKey{}, "for")
	steps, text := r.Lookup("mixed").Success(ctx, shopReq{"ord_1"}, &shopRes{rows: 3})
	assert.Equal(t, []string{"First.", "for ord_1: 3 rows", "Last."}, steps)
	assert.Equal(t, "Next steps:\n- First.\n- for ord_1: 3 rows\n- Last.", text)

	steps, text = r.Lookup("quiet").Success(context.Background(), shopReq{}, nil)
	assert.Nil(t, steps, "a function with nothing to add leaves the result as it is")
	assert.Empty(t, text)
	assert.True(t, r.Lookup("quiet").HasSuccessHints())

	assert.False(t, r.Lookup("errors only").HasSuccessHints())
	steps, text = r.Lookup("errors only").Success(context.Background(), shopReq{}, nil)
	assert.Nil(t, steps)
	assert.Empty(t, text)
}

func TestSuccessText(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "Next steps:\n- a\n- b", hints.SuccessText([]string{"a", "b"}))
	assert.Equal(t, "Next steps:", hints.SuccessText(nil))
	assert.True(t, newReg(nil).SuccessText(), "steps go in the content by default")
	assert.False(t, newReg(nil, hints.WithoutSuccessText()).SuccessText())
}

// MetaSteps puts the tool's steps ahead of those a handler set under
// MetaKey itself, whatever form they were decoded in, without repeats and
// without touching its argument.
func TestMetaSteps(t *testing.T) {
	t.Parallel()
	steps := []string{" Export it. ", "Export it.", "Share it."}
	for _, tc := range []struct {
		name string
		prev any
		want []string
	}{
		{"none", nil, []string{"Export it.", "Share it."}},
		{"strings", []string{"Handler's own.", "Share it."}, []string{"Export it.", "Share it.", "Handler's own."}},
		{"decoded JSON", []any{"Handler's own.", 42, nil, "Export it."}, []string{"Export it.", "Share it.", "Handler's own."}},
		{"not a list", "Handler's own.", []string{"Export it.", "Share it."}},
	} {
		assert.Equal(t, tc.want, hints.MetaSteps(steps, tc.prev), tc.name)
		assert.Equal(t, []string{" Export it. ", "Export it.", "Share it."}, steps, "steps is not modified (%s)", tc.name)
	}
	assert.Empty(t, hints.MetaSteps(nil, nil))
	assert.Equal(t, "io.github.mcpguard/next_steps", hints.MetaKey)
}

// A checked success function that cannot read a result adds no steps, and
// its first error per tool is logged at debug level, once.
func TestACheckedSuccessFuncsErrorIsLoggedOnce(t *testing.T) {
	t.Parallel()
	var buf logBuffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rule := hints.For("execute_query", hints.OnSuccessChecked(func(_ context.Context, _ queryReq, res *queryRes) ([]hints.Step, error) {
		if res.rows < 0 {
			return []hints.Step{hints.Text("ignored")}, fmt.Errorf("cannot read %d rows", res.rows)
		}
		return []hints.Step{hints.Text("Read the rows.")}, nil
	}))
	tl := hints.NewRegistry([]hints.Rule[queryReq, *queryRes]{rule}, nil, hints.WithLogger(logger)).Lookup("execute_query")
	for range 3 {
		steps, text := tl.Success(context.Background(), queryReq{1}, &queryRes{rows: -1})
		assert.Empty(t, steps)
		assert.Empty(t, text)
	}
	steps, _ := tl.Success(context.Background(), queryReq{1}, &queryRes{rows: 2})
	assert.Equal(t, []string{"Read the rows."}, steps)
	recs := buf.records(t)
	if assert.Len(t, recs, 1) {
		assert.Equal(t, "DEBUG", recs[0]["level"])
		assert.Equal(t, "execute_query", recs[0]["tool"])
		assert.Equal(t, "cannot read -1 rows", recs[0]["error"])
	}
}
