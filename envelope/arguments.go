package envelope

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// ArgumentsOf returns a call's arguments as JSON: as the client sent them,
// or, for a request built in process, encoded from Arguments; nil for
// none, or for arguments that do not encode. mcp-go's one reading of a
// call's raw arguments, for the layers that digest, seal or record them.
func ArgumentsOf(req mcp.CallToolRequest) []byte {
	if len(req.Params.RawArguments) > 0 || req.Params.Arguments == nil {
		return req.Params.RawArguments
	}
	b, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return nil
	}
	return b
}
