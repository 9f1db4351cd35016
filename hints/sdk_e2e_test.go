package hints_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/internal/nodetest"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/hints"
)

// serveEnv makes the test binary serve the e2e server on stdio instead of
// running tests; see TestMain.
const serveEnv = "MCPGUARD_HINTS_E2E_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		serveE2E()
		return
	}
	os.Exit(m.Run())
}

// serveE2E serves tools with and without an output schema, hints inside
// middleware.Default, over stdio.
func serveE2E() {
	s := server.NewMCPServer("hints-e2e", "1.0.0", server.WithToolCapabilities(false), server.WithOutputSchemaValidation())
	s.Use(defaultChain()...)
	s.Use(hints.Middleware(append(shopRules(), queryRule,
		hints.For("report", hints.OnSuccess(hints.Call("report_export", "to download the report as PDF"))))...))
	s.AddTool(mcp.NewTool("execute_query", mcp.WithNumber("total"), mcp.WithNumber("page"), mcp.WithOutputSchema[QueryResult]()), executeQuery)
	s.AddTool(mcp.NewTool("report"), okHandler)
	s.AddTool(mcp.NewTool("shop_order", mcp.WithString("id"), mcp.WithString("mode"), mcp.WithOutputSchema[QueryResult]()), shopOrder)
	if err := server.ServeStdio(s); err != nil {
		os.Exit(1)
	}
}

// TestTypeScriptSDKClient checks that the official TypeScript SDK client
// accepts hinted results from tools with and without an output schema, and
// sees the hints. It installs e2e/node's pinned packages on first use; only
// a machine without npm, outside CI, skips it.
func TestTypeScriptSDKClient(t *testing.T) {
	if os.Getenv("CI") == "" {
		if _, err := exec.LookPath("npm"); err != nil {
			t.Skip("npm is not installed and CI is unset: install Node.js 20+ to run the TypeScript SDK client test")
		}
	}
	sdk := filepath.Join(nodetest.Dir(t), "node_modules", "@modelcontextprotocol", "sdk")
	node := nodetest.Node(t)
	self, err := os.Executable()
	require.NoError(t, err)
	args, _ := json.Marshal([]string{"-test.run=^$"})
	cmd := exec.CommandContext(t.Context(), node, filepath.Join("testdata", "sdk_client.cjs"))
	cmd.Env = append(os.Environ(), "MCP_SDK_DIR="+sdk, "SERVER_CMD="+self, "SERVER_ARGS="+string(args), serveEnv+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "stderr: %s", stderr.String())

	type item struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	var got map[string]struct {
		Thrown            string          `json:"thrown"`
		IsError           bool            `json:"isError"`
		Meta              map[string]any  `json:"meta"`
		Content           []item          `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	require.NoError(t, json.Unmarshal(out, &got), "%s", out)

	for _, key := range []string{"query_page", "query_empty", "query_error", "report", "order_error"} {
		assert.Empty(t, got[key].Thrown, "%s: the SDK client rejected the result", key)
	}
	page := got["query_page"]
	assert.False(t, page.IsError)
	assert.Equal(t, []any{
		"Call execute_query with page=3 to continue.",
		"Call analyze_query_results for a summary of these rows.",
		"Call execute_query_with_export to download all pages as CSV or Excel.",
	}, page.Meta[hints.MetaKey])
	require.NotEmpty(t, page.Content)
	assert.True(t, strings.HasPrefix(page.Content[len(page.Content)-1].Text, "Next steps:\n- Call execute_query with page=3"))
	assert.JSONEq(t, `{"rows":[{"id":11},{"id":12},{"id":13},{"id":14},{"id":15},{"id":16},{"id":17},{"id":18},{"id":19},{"id":20}],"total_count":25,"page":2}`, string(page.StructuredContent))

	assert.Contains(t, got["query_empty"].Meta[hints.MetaKey], "Call get_schema to verify table and column names.")
	assert.Equal(t, []any{"Call report_export to download the report as PDF."}, got["report"].Meta[hints.MetaKey])

	for key, first := range map[string]string{
		"query_error": "Call execute_query with page=1.",
		"order_error": "Call shop_authenticate with your API key, then retry.",
	} {
		r := got[key]
		assert.True(t, r.IsError, key)
		assert.Equal(t, "null", string(r.StructuredContent), "%s: no structuredContent on a tool with an output schema", key)
		require.NotEmpty(t, r.Content, key)
		env, ok := envelope.Parse(r.Content[0].Text)
		require.True(t, ok, "%s: %s", key, r.Content[0].Text)
		assert.Equal(t, first, env.NextSteps[0], key)
	}
}
