package limit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
)

// lockedBuffer is a log sink safe for the handler's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// callRecords are the per-call log records written to l, in order.
func (l *lockedBuffer) callRecords(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(l.b.String()), "\n") {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
		if rec["msg"] == middleware.LogMessage {
			out = append(out, rec)
		}
	}
	return out
}

// TestAHeldCallIsLoggedAsHeld: of two calls of a 2026-07-28 client at
// once over a rate of 10 a second, the second is held until its token
// and then succeeds; its record says so (admission=held and the
// milliseconds it waited), the first's says nothing of a limit. A
// 2025-11-25 client's second call is refused at once, and its record
// has no admission either: it was not held. Before this change a held
// call's record was a plain success.
func TestAHeldCallIsLoggedAsHeld(t *testing.T) {
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(protocol, func(t *testing.T) {
			log := &lockedBuffer{}
			s := server.NewMCPServer("hold", "1")
			s.Use(middleware.Default(middleware.WithLogger(slog.New(slog.NewJSONHandler(log, nil))),
				middleware.WithLimits(limit.Rate(10, 1)))...)
			h := &runs{}
			s.AddTool(tool, h.handler)
			c := dial(t, s, protocol)
			var req mcp.CallToolRequest
			req.Params.Name = "shop_search"
			for range 2 {
				_, err := c.CallTool(context.Background(), req)
				require.NoError(t, err)
			}
			recs := log.callRecords(t)
			require.Len(t, recs, 2)
			assert.NotContains(t, recs[0], "admission")
			assert.NotContains(t, recs[0], "held_ms")
			if protocol == "2025-11-25" {
				assert.Equal(t, "tool_error", recs[1]["outcome"])
				assert.NotContains(t, recs[1], "admission", "refused at once, not held")
				assert.NotContains(t, recs[1], "held_ms")
				return
			}
			assert.Equal(t, "success", recs[1]["outcome"])
			assert.Equal(t, "held", recs[1]["admission"], "%v", recs[1])
			assert.Greater(t, recs[1]["held_ms"], 0.0, "%v", recs[1])
		})
	}
}
