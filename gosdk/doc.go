// Package gosdk gives servers built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) the guarantees mcpguard gives
// mcp-go servers, with the same envelope on the wire, byte for byte.
package gosdk
