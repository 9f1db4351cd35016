package limit

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

type principalKey struct{}

// principalPrefix keeps principals and session IDs apart in one key space
// without building a string on every call.
const principalPrefix = "principal\x00"

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

// DefaultKey keys a call by its authenticated principal when
// [ContextWithPrincipal] named one, else by its MCP session, else it
// returns "" (one global bucket).
//
// Sessions disappear in the 2026-07-28 protocol: a modern, stateless
// request has no session, so without a principal every such call shares
// the global bucket. Name the principal, or pass your own [KeyFunc] with
// [WithKey], if callers must not share one budget.
func DefaultKey(ctx context.Context, _ mcp.CallToolRequest) string {
	if p, _ := ctx.Value(principalKey{}).(string); p != "" {
		return p
	}
	if s := server.ClientSessionFromContext(ctx); s != nil {
		return s.SessionID()
	}
	return ""
}
