package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/audit"
)

// maxSniffedLine bounds the part of a message the sniffer keeps: error
// answers are small, and a longer message is never one the probe needs.
const maxSniffedLine = 64 << 10

// errorSniffer watches the raw messages a server sends for JSON-RPC error
// answers and keeps the last one's code and message. mcp-go's client keeps
// only the message of a code it does not know (code 0, the reserved
// ranges), and rule D judges the code; the probe sends one call at a time,
// so the last error answer is the current call's.
type errorSniffer struct {
	list     listSniffer // the tools/list answer, as sent
	mu       sync.Mutex
	line     []byte
	overflow bool
	last     *audit.ProtocolError
}

// Write takes a chunk of the stream, in order.
func (s *errorSniffer) Write(p []byte) {
	s.list.write(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !s.overflow {
			if len(s.line)+len(chunk) > maxSniffedLine {
				s.overflow, s.line = true, s.line[:0]
			} else {
				s.line = append(s.line, chunk...)
			}
		}
		if i < 0 {
			return
		}
		s.endLine()
		p = p[i+1:]
	}
}

// Flush ends a message that the stream ends without a newline.
func (s *errorSniffer) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endLine()
}

func (s *errorSniffer) endLine() {
	line := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(s.line), []byte("data:"))) // SSE frames carry "data: {...}"
	if !s.overflow && bytes.Contains(line, []byte(`"error"`)) {
		var msg struct {
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &msg) == nil && msg.Error != nil {
			s.last = &audit.ProtocolError{Code: msg.Error.Code, Message: msg.Error.Message}
		}
	}
	s.line, s.overflow = s.line[:0], false
}

// take returns the last error answer seen and forgets it.
func (s *errorSniffer) take() *audit.ProtocolError {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.last
	s.last = nil
	return e
}

// withCodes returns err as the protocol error the server sent, when the
// call failed with one; the original error stays in the chain.
func withCodes(err error, pe *audit.ProtocolError) error {
	if err == nil || pe == nil {
		return err
	}
	var already *audit.ProtocolError
	if errors.As(err, &already) {
		return err
	}
	return &codedError{pe: pe, err: err}
}

// codedError carries both the server's protocol error and the client's.
type codedError struct {
	pe  *audit.ProtocolError
	err error
}

func (e *codedError) Error() string   { return e.pe.Error() }
func (e *codedError) Unwrap() []error { return []error{e.pe, e.err} }

// callWithCodes makes a tools/call through the client and reports a
// JSON-RPC error answer with its real code.
func callWithCodes(ctx context.Context, call func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error), s *errorSniffer, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.take()
	res, err := call(ctx, req)
	return res, withCodes(err, s.take())
}
