package limit_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/limit"
)

// TestAHeldCallIsLoggedAsHeld: go-sdk's own 2026-07-28 client calls
// twice over a rate of 10 a second; the second call is held until its
// token, then succeeds, and its record says so (admission=held and the
// milliseconds it waited); the first's says nothing of a limit. Before
// this change a held call's record was a plain success.
func TestAHeldCallIsLoggedAsHeld(t *testing.T) {
	log := &lockedBuffer{}
	cs := serve(t, ok, []mcp.Middleware{limit.Rate(10, 1)},
		gosdk.WithLogger(slog.New(slog.NewJSONHandler(log, nil)))).ClientSession()
	require.Equal(t, "2026-07-28", cs.InitializeResult().ProtocolVersion)
	for range 2 {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		require.NoError(t, err)
		require.False(t, res.IsError)
	}
	var recs []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(log.String()), "\n") {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
		if rec["msg"] == gosdk.LogMessage {
			recs = append(recs, rec)
		}
	}
	require.Len(t, recs, 2)
	assert.NotContains(t, recs[0], "admission")
	assert.NotContains(t, recs[0], "held_ms")
	assert.Equal(t, "success", recs[1]["outcome"])
	assert.Equal(t, "held", recs[1]["admission"], "%v", recs[1])
	assert.Greater(t, recs[1]["held_ms"], 0.0, "%v", recs[1])
}
