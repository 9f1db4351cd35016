package limit

import (
	"context"
	"net"
	"net/http"
	"net/netip"

	"github.com/mark3labs/mcp-go/mcp"
)

type (
	principalKey struct{}
	addrKey      struct{}
)

// The prefixes keep principals and addresses apart in one key space; the
// prefixed key is built once per request, when the context is made, never
// on a call.
const (
	principalPrefix = "principal\x00"
	addrPrefix      = "addr\x00"
)

// ContextWithPrincipal returns a copy of ctx that names the authenticated
// caller, for [DefaultKey]. mcp-go does not carry an identity to tool
// handlers, so set it where you authenticate, for example in
// server.WithHTTPContextFunc. An empty principal leaves ctx as it is.
func ContextWithPrincipal(ctx context.Context, principal string) context.Context {
	if principal == "" {
		return ctx
	}
	return context.WithValue(ctx, principalKey{}, principalPrefix+principal)
}

// PrincipalFromContext returns the principal set by [ContextWithPrincipal],
// or "".
func PrincipalFromContext(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	if p == "" {
		return ""
	}
	return p[len(principalPrefix):]
}

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
	if addr == "" {
		return ctx
	}
	return context.WithValue(ctx, addrKey{}, addrPrefix+clientNetwork(addr))
}

// RemoteAddrFromContext returns the address set by
// [ContextWithRemoteAddr], as [DefaultKey] uses it (no port, IPv6 as a
// /64), or "".
func RemoteAddrFromContext(ctx context.Context) string {
	a, _ := ctx.Value(addrKey{}).(string)
	if a == "" {
		return ""
	}
	return a[len(addrPrefix):]
}

// HTTPContext names the request's remote address in ctx with
// [ContextWithRemoteAddr]. It is a server.HTTPContextFunc and a
// server.SSEContextFunc, so that [DefaultKey] keys HTTP callers apart:
//
//	server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(limit.HTTPContext))
//
// To name the principal too, call it from your own context function.
func HTTPContext(ctx context.Context, r *http.Request) context.Context {
	return ContextWithRemoteAddr(ctx, r.RemoteAddr)
}

// clientNetwork reduces a remote address to what one client cannot
// multiply: the IP without its port or zone, an IPv6 address to its /64.
func clientNetwork(addr string) string {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return addr
	}
	ip = ip.WithZone("").Unmap()
	if ip.Is6() {
		return netip.PrefixFrom(ip, 64).Masked().String()
	}
	return ip.String()
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
func DefaultKey(ctx context.Context, _ mcp.CallToolRequest) string {
	if p, _ := ctx.Value(principalKey{}).(string); p != "" {
		return p
	}
	if a, _ := ctx.Value(addrKey{}).(string); a != "" {
		return a
	}
	return ""
}
