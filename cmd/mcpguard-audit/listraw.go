package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// listSniffer keeps what the server sends while a tools/list call is
// under way, and gives back the call's result as the server sent it.
// mcp-go's client decodes a listing into its own types, which drop the
// schema keywords they do not model and add empty annotations; a baseline
// pins the definitions as sent, which mcpguard-proxy --pin compares at
// run time. Only the one call in flight is read: the audit lists one page
// at a time and calls nothing meanwhile.
type listSniffer struct {
	mu   sync.Mutex
	on   bool
	max  int // bytes kept at most: the message limit
	buf  []byte
	over bool
}

// write takes a chunk of the stream, in order.
func (s *listSniffer) write(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.on || s.over {
		return
	}
	if len(s.buf)+len(p) > s.max {
		s.over, s.buf = true, nil
		return
	}
	s.buf = append(s.buf, p...)
}

// begin starts keeping the stream.
func (s *listSniffer) begin() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on, s.over, s.buf = true, false, nil
}

// end stops keeping the stream and returns the result of the last answer
// in it: the whole of what was read (an HTTP body), else one line of it
// (stdio, or an event stream's "data:" line).
func (s *listSniffer) end() (json.RawMessage, error) {
	s.mu.Lock()
	buf, over := s.buf, s.over
	s.on, s.buf = false, nil
	s.mu.Unlock()
	if over {
		return nil, errors.New("the tools/list answer is longer than the message limit")
	}
	if r, ok := resultOf(buf); ok {
		return r, nil
	}
	var last json.RawMessage
	for line := range bytes.SplitSeq(buf, []byte("\n")) {
		line = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(line), []byte("data:")))
		if r, ok := resultOf(line); ok {
			last = r
		}
	}
	if last == nil {
		return nil, errors.New("the tools/list answer was not seen as one JSON message on the wire")
	}
	return last, nil
}

// resultOf returns the result of a JSON-RPC answer; a request or a
// notification (which carry a method) has none.
func resultOf(msg []byte) (json.RawMessage, bool) {
	var m struct {
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	if len(msg) == 0 || json.Unmarshal(msg, &m) != nil || m.Method != "" || m.Result == nil {
		return nil, false
	}
	return m.Result, true
}

// ListToolsRaw lists one page, bounded by the connect timeout, and
// returns its result as the server sent it (audit.RawLister).
func (b boundedList) ListToolsRaw(ctx context.Context, req mcp.ListToolsRequest) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, b.d)
	defer cancel()
	b.sniff.list.begin()
	_, err := b.Client.ListToolsByPage(ctx, req)
	raw, rerr := b.sniff.list.end()
	if err != nil {
		return nil, err
	}
	return raw, rerr
}
