package limit

import (
	"context"
	"net"
	"net/http"
	"net/netip"
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
// caller, for [Key]. An empty principal leaves ctx as it is.
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

// PrincipalKey returns the key [Key] gives a call whose context
// [ContextWithPrincipal] named principal, or "" for an empty principal:
// for a front whose SDK carries the authenticated identity on the request
// rather than in the context (go-sdk's TokenInfo), so that its principals
// share the key space of those named in a context, apart from addresses.
// It allocates the key.
func PrincipalKey(principal string) string {
	if principal == "" {
		return ""
	}
	return principalPrefix + principal
}

// ContextWithRemoteAddr returns a copy of ctx that names the network
// address the call came from, for [Key]: an IP address, with or without a
// port ("192.0.2.1:5123", "[2001:db8::1]:443"). The port is dropped,
// because a client picks a new one with every connection, and an IPv6
// address stands for its /64 network, because one host commonly holds a
// whole /64. Anything else that is not empty is kept as it is. An empty
// address leaves ctx as it is.
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
// [ContextWithRemoteAddr], as [Key] uses it (no port, IPv6 as a /64), or
// "".
func RemoteAddrFromContext(ctx context.Context) string {
	a, _ := ctx.Value(addrKey{}).(string)
	if a == "" {
		return ""
	}
	return a[len(addrPrefix):]
}

// HTTPContext names the request's remote address in ctx with
// [ContextWithRemoteAddr]: the shape of a context function that an HTTP
// transport calls for each request.
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

// Key is the default rate-limit key of a call: its authenticated
// principal when [ContextWithPrincipal] named one, else its remote address
// when [ContextWithRemoteAddr] named one, else "" (one bucket shared by
// every caller). It never uses an MCP session, which a client can mint;
// see the package documentation. It does not allocate.
func Key(ctx context.Context) string {
	if p, _ := ctx.Value(principalKey{}).(string); p != "" {
		return p
	}
	if a, _ := ctx.Value(addrKey{}).(string); a != "" {
		return a
	}
	return ""
}

// PrincipalKeyFrom returns the key [Key] gives the principal
// [ContextWithPrincipal] named in ctx, or "" when it named none: the
// caller of the repeated-failure guard, which never keys by address (two
// users behind one address are two callers). It does not allocate.
func PrincipalKeyFrom(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}
