package audit

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Require audits tools (rules A to C) and fails t once per finding at or
// above the threshold set with [WithFailOn] ([Error] unless set). It
// returns the report for further assertions.
//
//	func TestToolsAreAgentReady(t *testing.T) {
//		audit.Require(t, myTools(), audit.WithFailOn(audit.Warning))
//	}
func Require(t testing.TB, tools []mcp.Tool, opts ...Option) *Report {
	t.Helper()
	r := Tools(tools, opts...)
	fail(t, r)
	return r
}

// RequireServer audits an in-process server, probing it too when
// [WithProbe] is given, and fails t once per finding at or above the
// threshold. With WithFailOn(Warning) it passes exactly when every score is
// 100%.
//
//	func TestServerIsAgentReady(t *testing.T) {
//		audit.RequireServer(t, newServer(), audit.WithProbe(), audit.WithFailOn(audit.Warning))
//	}
func RequireServer(t testing.TB, s *server.MCPServer, opts ...Option) *Report {
	t.Helper()
	r, err := Server(context.Background(), s, opts...)
	if err != nil {
		t.Fatalf("audit: %v", err)
		return nil
	}
	fail(t, r)
	return r
}

func fail(t testing.TB, r *Report) {
	t.Helper()
	for _, f := range r.AtLeast(r.FailOn) {
		t.Errorf("audit: %s\n\tfix: %s", f, f.Fix)
	}
}
