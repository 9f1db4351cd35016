package audit_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/audit"
)

// A list with thousands of findings lists the first ones of each rule and
// counts the rest; the scores still count every item.
func TestFindingsPerRuleAreCapped(t *testing.T) {
	var tl []mcp.Tool
	for i := range 300 {
		tl = append(tl, mcp.NewTool(fmt.Sprintf("Tool%d", i), mcp.WithString("q")))
	}
	full := audit.Tools(tl)
	capped := audit.Tools(tl, audit.WithLimits(audit.Limits{FindingsPerRule: 10}))
	perRule := map[audit.Rule]int{}
	for _, f := range capped.Findings {
		perRule[f.Rule]++
	}
	for _, r := range []audit.Rule{audit.RuleNames, audit.RuleDescriptions, audit.RuleSchemas} {
		assert.Equal(t, 10, perRule[r], "rule %s", r)
		all := 0
		for _, f := range full.Findings {
			if f.Rule == r {
				all++
			}
		}
		assert.Equal(t, all-10, capped.Omitted[r], "rule %s", r)
	}
	assert.Equal(t, full.Scores, capped.Scores)
	assert.Empty(t, full.Omitted)
	assert.Contains(t, text(capped), "more not listed (over the per-rule limit)")
}

// An audit that runs out of time says so and fails, rather than passing
// on what it had time to check.
func TestDeadlineMarksTheReportIncomplete(t *testing.T) {
	r := audit.Tools(named("shop_a", "shop_b"), audit.WithDeadline(time.Nanosecond))
	assert.Contains(t, r.Incomplete, "the deadline passed")
	assert.True(t, r.Failed())
	assert.Contains(t, text(r), "INCOMPLETE: the deadline passed")

	// A probe whose tools never answer stops when the run's context ends:
	// here the first call ends it, so the outcome does not depend on timing.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	s := server.NewMCPServer("slow", "1")
	for i := range 50 {
		s.AddTool(mcp.NewTool(fmt.Sprintf("slow_t%02d", i), mcp.WithString("q", mcp.Required())),
			func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				once.Do(cancel)
				<-ctx.Done()
				return nil, ctx.Err()
			})
	}
	r, err := audit.Server(ctx, s, audit.WithProbe(), audit.WithTimeout(time.Hour))
	require.NoError(t, err)
	assert.Contains(t, r.Incomplete, `the deadline passed while "slow_t00" was probed, after 0 of 50 tools`)
	assert.True(t, r.Failed(audit.Error))
	assert.Empty(t, r.WithCheck(audit.CheckNoAnswer), "the tool cut off by the run's deadline is not blamed for it")
	assert.Nil(t, r.Scores.D, "no tool was probed to the end")
}

// Listing stops at the first limit exceeded, with an error that names it.
func TestListingLimits(t *testing.T) {
	s := server.NewMCPServer("many", "1", server.WithPaginationLimit(2))
	for i := range 20 {
		s.AddTool(mcp.NewTool(fmt.Sprintf("many_t%02d", i)), nil)
	}
	for _, tc := range []struct {
		l    audit.Limits
		want string
	}{
		{audit.Limits{Pages: 3}, "more than 3 pages"},
		{audit.Limits{Tools: 5}, "more than 5 tools"},
		{audit.Limits{ListBytes: 500}, "exceed 500 bytes"},
	} {
		_, err := audit.Server(context.Background(), s, audit.WithLimits(tc.l))
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
		assert.NotContains(t, err.Error(), "audit: audit:")
	}
	r, err := audit.Server(context.Background(), s)
	require.NoError(t, err)
	assert.Len(t, r.Tools, 20, "all ten pages within the default limits")
}
