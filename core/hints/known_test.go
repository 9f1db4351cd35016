package hints_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/hints"
)

// A hint naming a tool the server does not have ("search_node" for
// "search_nodes") is found at the first complete list of the server's
// tools, logged once as a warning, and its step is never sent.
func TestStepsNamingAnUnknownToolAreNotSent(t *testing.T) {
	t.Parallel()
	var buf logBuffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	rule := hints.For("execute_query",
		hints.OnSuccess[queryReq, *queryRes](hints.Call("search_node", "to find the node"), hints.Call("get_schema", "for the columns")),
		hints.OnSuccessFunc(func(context.Context, queryReq, *queryRes) []hints.Step {
			return []hints.Step{hints.Call("search_node", "again"), hints.Text("Read the rows.")}
		}),
		hints.OnError[queryReq, *queryRes](envelope.NotFound, hints.Call("search_node", "to find the node"), hints.Text("Check the ID.")),
	)
	reg := hints.NewRegistry([]hints.Rule[queryReq, *queryRes]{rule, hints.For[queryReq, *queryRes]("gone", hints.OnSuccess[queryReq, *queryRes](hints.Text("x")))},
		nil, hints.WithLogger(logger))
	tl := reg.Lookup("execute_query")
	ctx := context.Background()
	steps, _ := tl.Success(ctx, queryReq{1}, &queryRes{})
	assert.Contains(t, steps, "Call search_node to find the node.", "before any check, every step goes out")

	reg.CheckOnce(ctx, func() ([]string, bool) { return []string{"execute_query"}, false })
	assert.False(t, reg.Checked(), "an incomplete list is no check")
	server := []string{"execute_query", "get_schema"}
	for range 3 {
		reg.CheckOnce(ctx, func() ([]string, bool) { return server, true })
	}
	assert.True(t, reg.Checked())

	steps, text := tl.Success(ctx, queryReq{1}, &queryRes{})
	assert.Equal(t, []string{"Call get_schema for the columns.", "Read the rows."}, steps)
	assert.NotContains(t, text, "search_node")
	errSteps, _ := tl.ErrorSteps(ctx, queryReq{1}, hints.Failure{Code: envelope.NotFound})
	assert.Equal(t, []string{"Check the ID."}, errSteps)

	recs := buf.records(t)
	if assert.Len(t, recs, 2, "one warning per problem, once") {
		for _, r := range recs {
			assert.Equal(t, "WARN", r["level"])
		}
		assert.Equal(t, "execute_query", recs[0]["tool"])
		assert.Contains(t, recs[0]["error"], `"search_node"`)
		assert.Equal(t, "gone", recs[1]["tool"])
	}
}

// Checking costs nothing once done: a static success hint of a clean
// registry still does not allocate.
func TestACheckedCleanRegistryAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("escape analysis differs under -race")
	}
	rule := hints.For("execute_query", hints.OnSuccess[queryReq, *queryRes](hints.Call("get_schema", "for the columns")))
	reg := hints.NewRegistry([]hints.Rule[queryReq, *queryRes]{rule}, nil)
	reg.CheckOnce(context.Background(), func() ([]string, bool) { return []string{"execute_query", "get_schema"}, true })
	tl := reg.Lookup("execute_query")
	res := &queryRes{}
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		reg.CheckOnce(ctx, nil)
		_, _ = tl.Success(ctx, queryReq{1}, res)
	})
	assert.Zero(t, allocs)
}

// A tool list that panics is no check: the next complete one is.
func TestAPanickingToolListIsNoCheck(t *testing.T) {
	t.Parallel()
	rule := hints.For("execute_query", hints.OnSuccess[queryReq, *queryRes](hints.Call("search_node", "to find the node")))
	reg := hints.NewRegistry([]hints.Rule[queryReq, *queryRes]{rule}, nil, hints.WithLogger(slog.New(slog.DiscardHandler)))
	reg.CheckOnce(context.Background(), func() ([]string, bool) { panic("listing failed") })
	assert.False(t, reg.Checked(), "a panicking list is no check")
	reg.CheckOnce(context.Background(), func() ([]string, bool) { return []string{"execute_query"}, true })
	assert.True(t, reg.Checked())
	steps, _ := reg.Lookup("execute_query").Success(context.Background(), queryReq{1}, &queryRes{})
	assert.Empty(t, steps)
}

// A rule for a tool the server lacks only never applies: no step names a
// missing tool, so the registry keeps the allocation-free path of a clean
// one.
func TestARuleForAMissingToolKeepsTheCleanPath(t *testing.T) {
	if raceEnabled {
		t.Skip("escape analysis differs under -race")
	}
	rules := []hints.Rule[queryReq, *queryRes]{
		hints.For("execute_query", hints.OnSuccess[queryReq, *queryRes](hints.Call("get_schema", "for the columns"))),
		hints.For("gone", hints.OnSuccess[queryReq, *queryRes](hints.Text("x"))),
	}
	reg := hints.NewRegistry(rules, nil, hints.WithLogger(slog.New(slog.DiscardHandler)))
	reg.CheckOnce(context.Background(), func() ([]string, bool) { return []string{"execute_query", "get_schema"}, true })
	tl := reg.Lookup("execute_query")
	res := &queryRes{}
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() { _, _ = tl.Success(ctx, queryReq{1}, res) })
	assert.Zero(t, allocs)
}
