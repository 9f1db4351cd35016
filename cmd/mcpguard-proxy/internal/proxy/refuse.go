package proxy

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// This file answers the client messages the proxy does not forward,
// because it cannot read them as every server would (package rpc): the
// proxy answers them itself, on stdio as on HTTP, and the upstream never
// sees them.

// refusal is the answer to a client message rpc.ReadClient refused with err,
// or a request whose id is not a string or an integer (err nil): -32700
// for what is not a JSON object, -32600 for a batch or an ambiguous
// message, with the id when the proxy could read one.
func refusal(b []byte, m *rpc.Message, err error) []byte {
	var id []byte
	if _, ok := rpc.IDKey(rpc.SoleID(b)); ok && err != nil {
		id = rpc.SoleID(b)
	}
	var a *rpc.Ambiguity
	switch {
	case err == nil:
		return rpcError(nil, -32600, "invalid request: the id must be a string or an integer (no fraction, no exponent)")
	case errors.As(err, &a):
		return rpcError(id, -32600, "invalid request: "+a.What+"; send each member once, its key in lower case as MCP spells it")
	}
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		return rpcError(nil, -32600, batchRefusal)
	}
	return rpcError(nil, -32700, "parse error: a message must be one JSON object, in UTF-8, as JSON-RPC 2.0 writes it")
}

// batchRefusal is the message of the error that answers a JSON-RPC batch.
const batchRefusal = "JSON-RPC batches are not supported: send one message per request"

// logRefused logs a client message the proxy answered itself.
func logRefused(ctx context.Context, logger *slog.Logger, b []byte, err error) {
	var a *rpc.Ambiguity
	if errors.As(err, &a) {
		safe.Log(ctx, logger, slog.LevelWarn, "mcpguard-proxy: refused an ambiguous client message",
			slog.String(logkey.Error, a.What))
		return
	}
	safe.Log(ctx, logger, slog.LevelWarn, "mcpguard-proxy: refused a client message it cannot read",
		slog.Int(logkey.Bytes, len(b)))
}

// refuseHTTP answers a POST whose body the proxy cannot read as every
// server would, or a request whose id is neither a string nor an
// integer: HTTP 400 with a JSON-RPC error body, as the TypeScript SDK's
// streamable HTTP server answers an invalid message.
func (h *HTTP) refuseHTTP(w http.ResponseWriter, r *http.Request, body []byte, m *rpc.Message, err error) {
	logRefused(r.Context(), h.g.o.logger, body, err)
	writeJSON(w, http.StatusBadRequest, refusal(body, m, err))
}
