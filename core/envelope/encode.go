package envelope

import (
	"context"
	"log/slog"

	"github.com/mcpguard/mcpguard/internal/incident"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// Unencodable logs that the result of a tool call cannot be sent, under a
// fresh incident ID, and returns the internal_error envelope naming it.
// err says why (an encoding error, which may quote what the value holds;
// a result the SDK refuses to send): it goes to the log only. A nil logger
// means the renderer's.
//
// The SDKs encode a result after every middleware has returned, where an
// encoding error leaves the call unanswered; each front's recovering layer
// encodes what the handler put in the result first, and answers with this
// envelope instead.
func (r *Renderer) Unencodable(ctx context.Context, tool string, err error, logger *slog.Logger) *Envelope {
	id := incident.New()
	if logger == nil {
		logger = r.o.log()
	}
	safe.Log(ctx, logger, slog.LevelError, "mcpguard: the tool's result cannot be sent",
		slog.String(logkey.Tool, tool),
		slog.String(logkey.IncidentID, id),
		slog.String(logkey.Error, safe.Error(err)))
	return r.Internal(tool, id)
}
