package limit

import (
	"context"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"

	core "github.com/mcpguard/mcpguard/core/limit"
)

// ContextWithPrincipal returns a copy of ctx that names the authenticated
// caller, for [DefaultKey]. mcp-go does not carry an identity to tool
// handlers, so set it where you authenticate, for example in
// server.WithHTTPContextFunc. An empty principal leaves ctx as it is.
func ContextWithPrincipal(ctx context.Context, principal string) context.Context {
	return core.ContextWithPrincipal(ctx, principal)
}

// PrincipalFromContext returns the principal set by [ContextWithPrincipal],
// or "".
func PrincipalFromContext(ctx context.Context) string { return core.PrincipalFromContext(ctx) }

// ContextWithRemoteAddr returns a copy of ctx that names the network
// address the call came from, for [DefaultKey]: an IP address, with or
// without a port ("192.0.2.1:5123", "[2001:db8::1]:443"). The port is
// dropped, because a client picks a new one with every connection, and an
// IPv6 address stands for its /64 network, because one host commonly
// holds a whole /64. Anything else that is not empty is kept as it is. An
// empty address leaves ctx as it is.
//
// Behind a reverse proxy every call comes from the proxy: pass the
// client's address as your proxy reports it, from the header you trust.
func ContextWithRemoteAddr(ctx context.Context, addr string) context.Context {
	return core.ContextWithRemoteAddr(ctx, addr)
}

// RemoteAddrFromContext returns the address set by
// [ContextWithRemoteAddr], as [DefaultKey] uses it (no port, IPv6 as a
// /64), or "".
func RemoteAddrFromContext(ctx context.Context) string { return core.RemoteAddrFromContext(ctx) }

// HTTPContext names the request's remote address in ctx with
// [ContextWithRemoteAddr]. It is a server.HTTPContextFunc and a
// server.SSEContextFunc, so that [DefaultKey] keys HTTP callers apart:
//
//	server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(limit.HTTPContext))
//
// To name the principal too, call it from your own context function.
func HTTPContext(ctx context.Context, r *http.Request) context.Context {
	return core.HTTPContext(ctx, r)
}

// DefaultKey keys a call by its authenticated principal when
// [ContextWithPrincipal] named one, else by its remote address when
// [ContextWithRemoteAddr] or [HTTPContext] named one, else it returns ""
// (one global bucket).
//
// It never keys by MCP session: a client mints sessions at will. mcp-go's
// default streamable HTTP server accepts any session ID of the right
// format without having issued it, and even a session the server did
// issue costs the client one initialize request; a bucket per session
// would be a fresh budget per request. Principals and addresses are what a
// caller cannot invent. To key by something else, pass your own [KeyFunc]
// with [WithKey].
func DefaultKey(ctx context.Context, _ mcp.CallToolRequest) string { return core.Key(ctx) }
