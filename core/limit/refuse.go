package limit

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// Refusal is the error a limit answers a refused call with:
// execution_failed with why as its message, retryable, with after in
// retry_after_ms and a next step that says to wait that long. A front
// renders it with its envelope renderer like any other error.
func Refusal(why string, after time.Duration) error {
	ms := (after + time.Millisecond - 1) / time.Millisecond
	step := fmt.Sprintf("Wait %d ms (retry_after_ms), then repeat this call unchanged; calling sooner will be refused again.", ms)
	err := envelope.New(envelope.ExecutionFailed, why)
	return envelope.SetRetryAfter(envelope.SetRetryable(envelope.ReplaceNextSteps(err, step), true), after)
}

// TimedOut is the error a call that passed its deadline is answered with:
// execution_failed, retryable, wrapping context.DeadlineExceeded, with a
// next step that says how to make the call cheaper.
func TimedOut(tool string, limit time.Duration) error {
	err := fmt.Errorf("%s did not finish within %s: %w", tool, limit, context.DeadlineExceeded)
	return envelope.ReplaceNextSteps(envelope.SetRetryable(envelope.Wrap(envelope.ExecutionFailed, err), true),
		"Make the call cheaper before you repeat it: narrow the query, ask for a smaller page or a shorter range, or split it into several calls.")
}
