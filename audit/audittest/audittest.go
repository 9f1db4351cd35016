package audittest

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/audit"
)

// Require audits tools (rules A to C, E and F) and fails t once per finding
// at or above the threshold set with audit.WithFailOn (audit.Error unless
// set). It returns the report for further assertions.
//
//	func TestToolsAreAgentReady(t *testing.T) {
//		audittest.Require(t, myTools(), audit.WithFailOn(audit.Warning))
//	}
func Require(t testing.TB, tools []mcp.Tool, opts ...audit.Option) *audit.Report {
	t.Helper()
	r := audit.Tools(tools, opts...)
	fail(t, r)
	return r
}

// RequireServer audits an in-process server, probing it too when
// audit.WithProbe is given, and fails t once per finding at or above the
// threshold. With audit.WithFailOn(audit.Warning) it passes exactly when
// every score is 100%.
//
//	func TestServerIsAgentReady(t *testing.T) {
//		audittest.RequireServer(t, newServer(), audit.WithProbe(), audit.WithFailOn(audit.Warning))
//	}
func RequireServer(t testing.TB, s *server.MCPServer, opts ...audit.Option) *audit.Report {
	t.Helper()
	r, err := audit.Server(context.Background(), s, opts...)
	if err != nil {
		t.Fatalf("audit: %v", err)
		return nil
	}
	fail(t, r)
	return r
}

func fail(t testing.TB, r *audit.Report) {
	t.Helper()
	for _, f := range r.AtLeast(r.FailOn) {
		t.Errorf("audit: %s\n\tfix: %s", f, f.Fix)
	}
}
