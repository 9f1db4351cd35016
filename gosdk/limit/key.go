package limit

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	core "github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/gosdk"
)

// DefaultKey keys a call by who it comes from, as far as the client cannot
// invent it:
//
//  1. the user of the call's bearer token, req.Extra.TokenInfo.UserID,
//     which go-sdk's auth.RequireBearerToken verified and the streamable
//     HTTP transport carries to every request;
//  2. else the principal named with [ContextWithPrincipal], or the remote
//     address named with [ContextWithRemoteAddr] or [HTTPHandler];
//  3. else "": one bucket shared by every caller, the right key over
//     stdio, with one client per process.
//
// A TokenInfo user and a principal of the same name share a bucket. It
// never keys by the session (req.Session.ID()): see the package
// documentation for why a session ID, even one go-sdk issued, is a budget
// a client can mint.
func DefaultKey(ctx context.Context, req *mcp.CallToolRequest) string {
	return gosdk.CallerKey(ctx, req)
}

// ContextWithPrincipal returns a copy of ctx that names the authenticated
// caller, for [DefaultKey], when the caller is known some other way than
// go-sdk's TokenInfo. An empty principal leaves ctx as it is.
func ContextWithPrincipal(ctx context.Context, principal string) context.Context {
	return core.ContextWithPrincipal(ctx, principal)
}

// PrincipalFromContext returns the principal set by [ContextWithPrincipal],
// or "".
func PrincipalFromContext(ctx context.Context) string { return core.PrincipalFromContext(ctx) }

// ContextWithRemoteAddr returns a copy of ctx that names the network
// address the call came from, for [DefaultKey]: an IP address, with or
// without a port. The port is dropped, because a client picks a new one
// with every connection, and an IPv6 address stands for its /64 network,
// because one host commonly holds a whole /64. An empty address leaves ctx
// as it is.
//
// Behind a reverse proxy every call comes from the proxy: pass the
// client's address as your proxy reports it, from the header you trust.
func ContextWithRemoteAddr(ctx context.Context, addr string) context.Context {
	return core.ContextWithRemoteAddr(ctx, addr)
}

// RemoteAddrFromContext returns the address set by
// [ContextWithRemoteAddr] or [HTTPHandler], as [DefaultKey] uses it (no
// port, IPv6 as a /64), or "".
func RemoteAddrFromContext(ctx context.Context) string { return core.RemoteAddrFromContext(ctx) }

// HTTPHandler names each HTTP request's remote address in its context with
// [ContextWithRemoteAddr], so that [DefaultKey] keys callers of a
// streamable HTTP server apart when they carry no token:
//
//	http.ListenAndServe(addr, limit.HTTPHandler(mcp.NewStreamableHTTPHandler(getServer, nil)))
//
// go-sdk's streamable server keeps the context values of the request that
// created a session for every call in it (and, stateless, of each
// request), so a call is keyed by the address that opened its session: a
// client that opens another session from the same address is the same
// caller.
func HTTPHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(core.HTTPContext(r.Context(), r)))
	})
}
