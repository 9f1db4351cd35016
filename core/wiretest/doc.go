// Package wiretest holds the assertions mcpguard's public test harnesses
// make on a tools/call response, whichever SDK served it:
// middleware/middlewaretest (mcp-go) and gosdk/gosdktest (go-sdk) decode
// the same wire JSON with it, so "ExpectError passes" means the same on
// both fronts. It imports no MCP SDK: it reads the JSON-RPC response as
// bytes, so a front for another SDK (or a proxy) can check its wire with
// the same rules.
//
// Most tests want the harness of their SDK instead: middlewaretest or
// gosdktest wrap this package with a server and a client. Like
// net/http/httptest, it imports testing and belongs in tests only.
package wiretest
