// Package audittest makes the agent-readiness audit a test of your own
// server, as net/http/httptest makes a server testable: it lives apart
// from package audit so that the mcpguard-audit binary, which links audit,
// does not link package testing.
//
//	func TestServerIsAgentReady(t *testing.T) {
//		audittest.RequireServer(t, newServer(), audit.WithProbe(), audit.WithFailOn(audit.Warning))
//	}
//
// Each finding at or above the threshold fails the test with its fix.
package audittest
