package proxy

import (
	"bytes"
	"encoding/json"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/core/wire"
)

// This file reads a tool result as the guard reads it (result), with the
// byte scanners that let a plain success pass without being decoded.

// mayBeError reports whether a result may have isError true: false only
// when no member's name can be isError, as encoding/json matches names
// (in any case, or written with escapes), so that a success is passed on
// without decoding it.
func mayBeError(result []byte) bool {
	return bytes.IndexByte(result, '\\') >= 0 || wire.ContainsFold(result, foldIsError)
}

// The names in a tools/call result the proxy acts on, as core/wire's
// ContainsFold and HasPrefixFold find them: mayBeError, mayHaveFailureMeta,
// the sealing's check and mayBeHandle each look for one, plainSuccess for
// all four.
const (
	foldIsError      = "iserror"
	foldToolFailure  = "toolfailure"
	foldRequestState = "requeststate"
	foldTaskID       = "taskid"
)

// plainSuccess reports whether a tools/call result, of a call that is not
// a tasks/result, is passed on as it is, without decoding it: no member's
// name, as encoding/json matches names, can be the toolFailure _meta, a
// requestState to seal or a task handle's taskId, and none can be isError
// but the result's own "isError": false (which the Python SDK's servers
// send with every success). It is mayBeError, mayHaveFailureMeta, the
// sealing's check and mayBeHandle in one pass over the result, which every
// successful call takes.
func plainSuccess(result []byte) bool {
	if !isObject(result) || bytes.IndexByte(result, '\\') >= 0 {
		return false
	}
	isError := 0
	for i, c := range result {
		switch c | 0x20 { // no rune beyond ASCII folds to i, t or r
		case 'i':
			if wire.HasPrefixFold(result[i:], foldIsError) {
				isError++
			}
		case 't':
			if wire.HasPrefixFold(result[i:], foldToolFailure) || wire.HasPrefixFold(result[i:], foldTaskID) {
				return false
			}
		case 'r':
			if wire.HasPrefixFold(result[i:], foldRequestState) {
				return false
			}
		}
	}
	return isError == 0 || (isError == 1 && rpc.FalseMember(result, "isError"))
}

// isObject reports whether a result, as the reader spans it, is a JSON
// object: a tools/call result that is not one (go-sdk's null for a
// handler that returned nothing, any other value) is decoded and answered
// as what it is, never passed on as a success.
func isObject(result []byte) bool { return len(result) > 0 && result[0] == '{' }

// mayHaveFailureMeta reports whether a result may hold a toolFailure
// _meta, as mayBeError does for isError.
func mayHaveFailureMeta(result []byte) bool {
	return bytes.IndexByte(result, '\\') >= 0 || wire.ContainsFold(result, foldToolFailure)
}

// result is a tools/call result, as far as the proxy reads it.
type result struct {
	IsError       bool              `json:"isError"`
	ResultType    string            `json:"resultType"`
	InputRequests json.RawMessage   `json:"inputRequests"`
	Content       []json.RawMessage `json:"content"`
	Meta          map[string]any    `json:"_meta"`
	// Task is a task handle's task (tasks.go): the answer to a
	// task-augmented call, whose result comes later.
	Task json.RawMessage `json:"task"`
}

// answer is the result as core/pipeline reads an answer: a task handle is
// its Task outcome, not a success of the tool.
func (r *result) answer() pipeline.Answer {
	return pipeline.Answer{IsError: r.IsError, ResultType: r.ResultType,
		InputRequests: len(r.InputRequests) > 0 && string(r.InputRequests) != "null",
		Task:          len(r.Task) > 0 && string(r.Task) != "null"}
}

// text joins the text items of the result's content.
func (r *result) text() string { return pipeline.JoinText(r.Content, itemText) }

// itemText returns the text of a text content item.
func itemText(raw json.RawMessage) (string, bool) {
	var item struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &item) != nil || item.Type != "text" {
		return "", false
	}
	return item.Text, true
}
