package envelope

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/core/pipeline"
)

// AnswerOf is what a tool call's handler (or the layers inside) answered,
// as core/pipeline reads an answer: the one reading of an mcp-go answer
// for every layer of this front (the envelope, hints, logging and
// OpenTelemetry layers). pipeline.Decide of it is what the call ended as:
//
//	switch pipeline.Decide(envelope.AnswerOf(res, err)) {
//	case pipeline.Success, pipeline.InputRequired: …
//
// An error is an error (not yet a protocol error: whether it stays one is
// the envelope layer's decision); a nil result with no error is Missing.
func AnswerOf(res *mcp.CallToolResult, err error) pipeline.Answer {
	if err != nil {
		return pipeline.Answer{Err: true}
	}
	if res == nil {
		return pipeline.Answer{Nil: true}
	}
	return pipeline.Answer{IsError: res.IsError, ResultType: string(res.ResultType), InputRequests: res.InputRequests != nil}
}
