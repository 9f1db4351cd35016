package otel

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

type transportKind int

const (
	transportUnknown transportKind = iota
	transportHTTP                  // streamable HTTP or SSE: the request has HTTP headers
	transportStdio                 // a session without HTTP headers that is not in-process
)

// transport tells how the call arrived. mcp-go hands HTTP headers to
// tool calls that came over HTTP and an empty header map otherwise; an
// in-process session, or no session (a direct HandleMessage), has no
// network transport to report.
func transport(ctx context.Context, req mcp.CallToolRequest) transportKind {
	if len(req.Header) > 0 {
		return transportHTTP
	}
	switch server.ClientSessionFromContext(ctx).(type) {
	case nil, *server.InProcessSession:
		return transportUnknown
	default:
		return transportStdio
	}
}

// protocolVersion is the MCP version in effect: a modern request's own,
// the version negotiated for the session, or the HTTP header's.
func protocolVersion(ctx context.Context, req mcp.CallToolRequest) string {
	if v := server.RequestProtocolVersion(ctx); v != "" {
		return v
	}
	return req.Header.Get(server.HeaderKeyProtocolVersion)
}

// sessionID is the MCP session of the call, when the protocol version in
// use still has sessions (they are gone from 2026-07-28).
func sessionID(ctx context.Context) string {
	if server.IsModernRequest(ctx) {
		return ""
	}
	if s := server.ClientSessionFromContext(ctx); s != nil {
		return s.SessionID()
	}
	return ""
}
