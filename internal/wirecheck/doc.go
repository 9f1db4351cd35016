// Package wirecheck holds the assertions mcpguard's public test harnesses
// make on a tools/call response, whichever SDK served it:
// middleware/middlewaretest (mcp-go) and gosdk/gosdktest (go-sdk) decode
// the same wire JSON with it, so "ExpectError passes" means the same on
// both fronts. It imports no MCP SDK: it reads the JSON-RPC response as
// bytes.
package wirecheck
