package hints_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// An error function sees the Go error's message when the handler returned
// one.
func TestErrorFuncSeesTheMessage(t *testing.T) {
	t.Parallel()
	rule := hints.For("shop_a", hints.OnErrorFunc(func(_ context.Context, _ mcp.CallToolRequest, f hints.Failure) []hints.Step {
		return []hints.Step{hints.Text("Saw: " + f.Message)}
	}))
	fail := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("disk full: %w", envelope.ErrExecutionFailed)
	}
	middlewaretest.New(t, toolA, fail, append(middleware.Default(), hints.Middleware(rule))...).Call(nil).
		ExpectError(envelope.ExecutionFailed).ExpectNextStep("Saw: disk full")
}

var errOwn = errors.New("card locked")

// OnErrorIs on the tool's own sentinel cannot be evaluated on a failure
// that arrives as a result: the operator is warned, once. A hint on one of
// envelope's sentinels stands for its code and needs no warning.
func TestOwnSentinelOnAResultIsWarnedAbout(t *testing.T) {
	t.Parallel()
	legacy := succeed(mcp.NewToolResultError("card locked"))
	for name, c := range map[string]struct {
		target error
		warned bool
	}{"own sentinel": {errOwn, true}, "envelope sentinel": {envelope.ErrExecutionFailed, false}} {
		logs := middlewaretest.NewLog(t)
		rule := hints.For("shop_a", hints.OnErrorIs(c.target, hints.Text("Unlock the card.")))
		srv := middlewaretest.New(t, toolA, legacy, hints.New([]hints.Rule{rule}, hints.WithLogger(logs.Logger())).Middleware())
		srv.Call(nil).ExpectError(envelope.ExecutionFailed)
		srv.Call(nil).ExpectError(envelope.ExecutionFailed)
		warnings := 0
		for _, rec := range logs.Records() {
			if rec["level"] == "WARN" {
				warnings++
			}
		}
		if c.warned {
			assert.Equal(t, 1, warnings, name)
		} else {
			assert.Zero(t, warnings, name)
		}
	}
}
