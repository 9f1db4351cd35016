package audit_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/audit"
)

// Kills the mutant "rule D never emits its next_steps warning": an
// envelope without next_steps is warned about, one with them is not.
func TestProbeNextSteps(t *testing.T) {
	s := server.NewMCPServer("t", "1")
	answer := func(env string) server.ToolHandlerFunc {
		return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError(env), nil
		}
	}
	s.AddTool(mcp.NewTool("t_bare", mcp.WithString("q", mcp.Required())),
		answer(`{"error_type":"validation_error","message":"q is required"}`))
	s.AddTool(mcp.NewTool("t_steps", mcp.WithString("q", mcp.Required())),
		answer(`{"error_type":"validation_error","message":"q is required","next_steps":["Call t_steps again with q set."]}`))
	r, err := audit.Server(context.Background(), s, audit.WithProbe())
	require.NoError(t, err)

	bare := dFindings(r, "t_bare")
	require.Contains(t, bare, audit.CheckNextSteps, text(r))
	assert.Equal(t, audit.Warning, bare[audit.CheckNextSteps].Severity)
	assert.NotContains(t, bare, audit.CheckEnvelope, "it is an envelope")
	assert.Equal(t, []string{audit.CheckNextSteps}, checks(bare))

	assert.Empty(t, dFindings(r, "t_steps"), text(r))
	assert.Equal(t, audit.Score{Checked: 2, Passed: 1, Percent: 50}, *r.Scores.D)
}

// Kills the mutant "rule C accepts a number with one bound": a number
// needs both a minimum and a maximum, and the finding names the missing
// one.
func TestNumberNeedsBothBounds(t *testing.T) {
	for _, tc := range []struct {
		schema, missing string
	}{
		{`{"type":"integer","minimum":1}`, `"maximum"`},
		{`{"type":"number","exclusiveMinimum":0}`, `"maximum"`},
		{`{"type":"integer","maximum":100}`, `"minimum"`},
		{`{"type":"number","exclusiveMaximum":1}`, `"minimum"`},
		{`{"type":"integer","minimum":1,"maximum":100}`, ""},
		{`{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}`, ""},
	} {
		def := fmt.Sprintf(`{"name":"t_tool","description":"A tool. Use this when testing, then stop.","inputSchema":{"type":"object","additionalProperties":false,"properties":{"n":%s}}}`, tc.schema)
		r := audit.Tools(tools(def))
		fs := find(r, audit.CheckBounds, "t_tool", "inputSchema.properties.n")
		if tc.missing == "" {
			assert.Empty(t, fs, tc.schema)
			continue
		}
		require.Len(t, fs, 1, tc.schema)
		assert.Equal(t, audit.Warning, fs[0].Severity)
		assert.Contains(t, fs[0].Message, "no "+tc.missing, tc.schema)
		assert.Contains(t, fs[0].Fix, tc.missing, tc.schema)
	}
}
