package gosdk

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file lets a layer inside the Middleware shed load (package limit
// does, when a call found no room to be held): it answers the call with
// an input_required result without input requests, which go-sdk's and
// mcp-go's 2026-07-28 clients answer by sending the same call again by
// themselves, at most twice. The Middleware's sealing step seals that
// result's requestState as a shed state (core/seal's SealShed): bound to
// the tool, the arguments and the caller, with the rounds so far and the
// state the call echoed, which the re-send gets back before any layer
// inside sees it.

// shedding is what the sealing step tells the layers inside of one call.
type shedding struct {
	on     bool // the Middleware seals requestState
	rounds int  // the load-shedding answers the call had
	shed   bool // a layer answered it with ShedResult
}

// inputRequired is an empty result whose unexported resultType is
// "input_required", as complete is "complete".
var inputRequired = func() (r mcp.CallToolResult) {
	_ = json.Unmarshal([]byte(`{"resultType":"input_required"}`), &r)
	return r
}()

// Shedding reports whether a layer inside the Middleware may answer req
// with [ShedResult], and how many load-shedding answers the call had
// already: its client negotiated multi round-trip requests (see
// [MultiRoundTrip]), the Middleware seals requestState (a shed state must
// not be the client's to write), and the call carries no inputResponses,
// which a client's re-send drops.
func Shedding(ctx context.Context, req *mcp.CallToolRequest) (rounds int, ok bool) {
	c := stateOf(ctx)
	if c == nil || !c.shedding.on || !MultiRoundTrip(req) || req.Params == nil || len(req.Params.InputResponses) > 0 {
		return 0, false
	}
	return c.shedding.rounds, true
}

// ShedResult is the load-shedding answer to req, which [Shedding]
// allowed: input_required, "inputRequests":{}, and req's requestState,
// which the Middleware seals into a shed state on its way out.
func ShedResult(ctx context.Context, req *mcp.CallToolRequest) *mcp.CallToolResult {
	if c := stateOf(ctx); c != nil {
		c.shedding.shed = true
	}
	res := inputRequired
	res.InputRequests = mcp.InputRequestMap{}
	if req != nil && req.Params != nil {
		res.RequestState = req.Params.RequestState
	}
	return &res
}

// isShed reports whether res is the load-shedding answer a layer inside
// gave the call of ctx.
func isShed(ctx context.Context, res *mcp.CallToolResult) bool {
	c := stateOf(ctx)
	return c != nil && c.shedding.shed && res.InputRequests != nil && len(res.InputRequests) == 0 && len(res.Content) == 0
}
