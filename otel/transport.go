package otel

import (
	"context"
	"net/http"

	"github.com/mark3labs/mcp-go/server"

	coreotel "github.com/mcpguard/mcpguard/core/otel"
)

// transport tells how the call arrived. mcp-go hands HTTP headers to
// calls that came over HTTP and an empty header map otherwise; an
// in-process session, or no session (a direct HandleMessage), has no
// network transport to report.
func transport(ctx context.Context, header http.Header) coreotel.Transport {
	if len(header) > 0 {
		return coreotel.TransportHTTP
	}
	switch server.ClientSessionFromContext(ctx).(type) {
	case nil, *server.InProcessSession:
		return coreotel.TransportUnknown
	default:
		return coreotel.TransportStdio
	}
}

// protocolVersion is the MCP version in effect: a modern request's own,
// the version negotiated for the session, or the HTTP header's.
func protocolVersion(ctx context.Context, header http.Header) string {
	if v := server.RequestProtocolVersion(ctx); v != "" {
		return v
	}
	return header.Get(server.HeaderKeyProtocolVersion)
}

// sessionID is the MCP session of the call, when the protocol version in
// use still has sessions (they are gone from 2026-07-28).
func sessionID(ctx context.Context) string {
	if server.IsModernRequest(ctx) {
		return ""
	}
	return sessionIDOf(ctx)
}

// sessionIDOf is the ID of the session in ctx, whatever the protocol.
func sessionIDOf(ctx context.Context) string {
	if s := server.ClientSessionFromContext(ctx); s != nil {
		return s.SessionID()
	}
	return ""
}
