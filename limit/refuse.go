package limit

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/envelope"
)

// refuse renders a refused call: execution_failed, retryable, with the
// delay in retry_after_ms and a step that says to wait that long.
func (o *options) refuse(ctx context.Context, req mcp.CallToolRequest, why string, after time.Duration) *mcp.CallToolResult {
	ms := (after + time.Millisecond - 1) / time.Millisecond
	step := fmt.Sprintf("Wait %d ms (retry_after_ms), then repeat this call unchanged; calling sooner will be refused again.", ms)
	err := envelope.New(envelope.ExecutionFailed, why)
	err = envelope.WithRetryAfter(envelope.WithRetryable(envelope.ReplaceNextSteps(err, step), true), after)
	return envelope.ErrorResult(ctx, req, err, o.envOpts...)
}
