package recover

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/internal/incident"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// Middleware recovers a panic anywhere in the layers and handler inside it
// and answers with an internal_error envelope carrying a fresh incident ID
// and a generic message. The panic value and the stack go to the logger
// under the same incident ID, never to the client.
//
// It handles every panic value: strings, errors, runtime errors such as a
// nil map write or an index out of range, values of any type whose String
// or Error method itself panics, and panic(nil), including under
// GODEBUG=panicnil=1, where recover() returns nil. It never re-panics and
// never returns a Go error, so a panic can neither crash the server nor
// become a JSON-RPC error.
//
// A call that does not panic costs one deferred function and no
// allocation.
func Middleware(opts ...Option) server.ToolHandlerMiddleware {
	o := evaluate(opts)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
			completed := false
			defer func() {
				if completed {
					return
				}
				// A nil recover() with completed false is panic(nil) under
				// panicnil=1, or runtime.Goexit (t.FailNow in a test). In the
				// second case these results are discarded anyway.
				v := recover()
				res, err = fallback, nil
				// The handling itself runs guarded: a panicking logger or
				// callback must not turn a handled panic into a crash.
				_ = safe.Call(func() { res = o.handle(ctx, req, v) })
			}()
			res, err = next(ctx, req)
			completed = true
			return res, err
		}
	}
}

// fallback answers when handling a panic fails too. It is built once and
// names no tool, so nothing can go wrong while sending it.
var fallback = (&envelope.Envelope{
	ErrorType: envelope.InternalError,
	Message:   "The tool failed with an internal error. Its details could not be logged.",
	NextSteps: envelope.DefaultNextSteps(envelope.InternalError),
	Retryable: true,
}).Result(context.Background())

func (o *options) handle(ctx context.Context, req mcp.CallToolRequest, v any) *mcp.CallToolResult {
	id := incident.New()
	tool := req.Params.Name
	p := Panic{IncidentID: id, Tool: tool, Value: v}
	if o.stack || o.onPanic != nil {
		p.Stack = debug.Stack()
	}
	attrs := []slog.Attr{
		slog.String("tool", tool),
		slog.String("incident_id", id),
		slog.String("panic", safe.Value(v)),
		slog.String("panic_go_type", fmt.Sprintf("%T", v)),
	}
	if o.stack {
		attrs = append(attrs, slog.String("stack", string(p.Stack)))
	}
	logger := o.logger
	if logger == nil {
		logger = slog.Default()
	}
	safe.Log(ctx, logger, slog.LevelError, "mcpguard: recovered panic in tool call", attrs...)
	if o.onPanic != nil {
		if hp := safe.Call(func() { o.onPanic(ctx, req, p) }); hp != nil {
			safe.Log(ctx, logger, slog.LevelError, "mcpguard: WithOnPanic callback panicked",
				slog.String("incident_id", id), slog.String("panic", safe.Value(hp)))
		}
	}
	return o.renderer.Internal(ctx, tool, id)
}
