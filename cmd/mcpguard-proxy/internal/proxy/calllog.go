package proxy

import (
	"context"
	"errors"
	"time"

	"github.com/mcpguard/mcpguard/core/calllog"
	"github.com/mcpguard/mcpguard/core/pipeline"
)

// This file is the proxy's per-call log record: core/chain's Log stage,
// which the proxy runs where it admits a call (Begin) and answers it
// (Run.End), writing core/calllog's record, the fronts' own.

// callLog is what [WithCallLog] sets.
type callLog struct {
	on   bool
	opts []calllog.Option
}

// WithCallLog writes one record per tool call the proxy admits, on the
// logger of [WithLogger], as the fronts' middleware.WithLogger and
// gosdk.WithLogger write theirs (core/calllog: the message "tool call",
// the tool, the duration, the outcome, the error_type and incident_id of
// a failure, and, for a call a limit held, admission and held_ms):
// successes at Info, tool errors at Warn, internal and protocol errors at
// Error unless opts say otherwise (calllog.WithLevels; calllog.WithArguments
// adds the arguments, secrets masked). A call is recorded once, with what
// its client received, when it is answered: the upstream's answer, a
// refusal, a timeout, the upstream gone; a call the repeated-failure guard
// holds back when it holds it back. A task is recorded at its handle.
func WithCallLog(opts ...calllog.Option) Option {
	return func(o *options) { o.calls = callLog{on: true, opts: opts} }
}

// callLogger is the Logger of o's records, nil without WithCallLog.
func (o *options) callLogger() *calllog.Logger {
	if !o.calls.on {
		return nil
	}
	return calllog.New(o.logger, o.calls.opts...)
}

// Record writes c's record: what r, the reply the client receives, says,
// read as the fronts read theirs.
func (a adapter) Record(ctx context.Context, c *call, r reply, d time.Duration) {
	rec := calllog.Call{Tool: c.tool, Duration: d, RawArgs: c.args, Note: c.note}
	rec.Outcome = pipeline.Decide(r.ans).Policy().Log
	switch rec.Outcome {
	case calllog.ToolError:
		rec.Envelope, _ = a.Envelope(r)
	case calllog.ProtocolError:
		if r.rpcErr != nil {
			rec.Err = errors.New(a.g.o.redactor.Text(r.message))
		}
	}
	a.g.calls.Record(ctx, rec)
}
