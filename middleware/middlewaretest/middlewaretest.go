package middlewaretest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/internal/leak"
)

// Server is a real *server.MCPServer driven through HandleMessage, the
// path every transport ends in. It is safe for concurrent use.
type Server struct {
	tb   testing.TB
	srv  *server.MCPServer
	tool string
	ids  atomic.Int64
}

// New serves one tool and its handler behind the given layers, which are
// installed with s.Use in the order given (outermost first), exactly as a
// server would install them:
//
//	srv := middlewaretest.New(t, tool, handler, middleware.Default()...)
//
// No layer at all is a plain mcp-go server, the baseline to compare with.
// [Server.Call] calls this tool.
func New(tb testing.TB, tool mcp.Tool, h server.ToolHandlerFunc, layers ...server.ToolHandlerMiddleware) *Server {
	tb.Helper()
	if h == nil {
		tb.Fatalf("middlewaretest: New(%q) with a nil handler", tool.Name)
	}
	s := server.NewMCPServer("middlewaretest", "0.0.0", server.WithToolCapabilities(false))
	if len(layers) > 0 {
		s.Use(layers...)
	}
	s.AddTool(tool, h)
	out := &Server{tb: tb, srv: s, tool: tool.Name}
	out.initialize()
	return out
}

// FromServer drives a server the caller built, with all its tools and
// layers. Call its tools with [Server.CallTool].
func FromServer(tb testing.TB, s *server.MCPServer) *Server {
	tb.Helper()
	if s == nil {
		tb.Fatal("middlewaretest: FromServer with a nil server")
	}
	out := &Server{tb: tb, srv: s}
	out.initialize()
	return out
}

// MCPServer returns the server, to add tools or inspect it.
func (s *Server) MCPServer() *server.MCPServer { return s.srv }

func (s *Server) initialize() {
	s.tb.Helper()
	raw := s.send(map[string]any{
		"protocolVersion": mcp.LATEST_PROTOCOL_VERSION,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "middlewaretest", "version": "0.0.0"},
	}, "initialize")
	var resp struct {
		Error *mcp.JSONRPCErrorDetails `json:"error"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil || resp.Error != nil {
		s.tb.Fatalf("middlewaretest: initialize failed: %s", raw)
	}
}

// Call calls the tool given to [New] with args; see [Server.CallTool].
func (s *Server) Call(args any) *Result {
	s.tb.Helper()
	if s.tool == "" {
		s.tb.Fatal("middlewaretest: Call needs the tool given to New; use CallTool on a server from FromServer")
	}
	return s.CallTool(s.tool, args)
}

// CallTool sends a tools/call request for the named tool through
// HandleMessage and decodes what a client would receive. args is encoded
// as JSON, so a struct, a map or nil (no arguments) all work. A
// json.RawMessage is sent verbatim, to test arguments of the wrong shape:
// json.RawMessage(`{"limit":"ten"}`) or json.RawMessage(`[1,2]`).
func (s *Server) CallTool(name string, args any) *Result {
	s.tb.Helper()
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	r := s.decode(name, s.send(params, "tools/call"))
	r.sent = leak.NewSent(args)
	return r
}

// ListTools returns the tools as tools/list sends them, with their input
// and output schemas as raw JSON in RawInputSchema/RawOutputSchema.
func (s *Server) ListTools() []json.RawMessage {
	s.tb.Helper()
	raw := s.send(map[string]any{}, "tools/list")
	var resp struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
		Error *mcp.JSONRPCErrorDetails `json:"error"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil || resp.Error != nil {
		s.tb.Fatalf("middlewaretest: tools/list failed: %s", raw)
	}
	return resp.Result.Tools
}

// send builds a JSON-RPC request, hands it to HandleMessage and returns the
// response exactly as a transport would write it.
func (s *Server) send(params any, method string) []byte {
	s.tb.Helper()
	req, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      s.ids.Add(1),
		"method":  method,
		"params":  params,
	})
	if err != nil {
		s.tb.Fatalf("middlewaretest: encoding %s request: %v", method, err)
	}
	resp := s.srv.HandleMessage(context.Background(), req)
	if resp == nil {
		s.tb.Fatalf("middlewaretest: %s got no response", method)
	}
	raw, err := json.Marshal(resp)
	if err != nil {
		s.tb.Fatalf("middlewaretest: encoding %s response: %v", method, err)
	}
	return raw
}

func (s *Server) decode(tool string, raw []byte) *Result {
	s.tb.Helper()
	r := &Result{tb: s.tb, Tool: tool, Raw: raw}
	var resp struct {
		Result json.RawMessage          `json:"result"`
		Error  *mcp.JSONRPCErrorDetails `json:"error"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		s.tb.Fatalf("middlewaretest: undecodable response %s: %v", raw, err)
	}
	if resp.Error != nil {
		r.ProtocolError = resp.Error
		return r
	}
	res, err := mcp.ParseCallToolResult(&resp.Result)
	if err != nil {
		s.tb.Fatalf("middlewaretest: undecodable tool result %s: %v", resp.Result, err)
	}
	r.CallResult = res
	r.rawResult = resp.Result
	if env, ok := envelope.FromResult(res); ok {
		r.Envelope = env
	}
	return r
}

// Result is what a client received for one tools/call. Its Expect methods
// report failures with t.Errorf and return the Result, so checks chain:
//
//	srv.Call(args).ExpectError(envelope.NotFound).ExpectNextStep("shop_search").NoLeak(dsnPassword)
type Result struct {
	tb testing.TB

	// Tool is the name of the tool called.
	Tool string
	// Raw is the whole JSON-RPC response, byte for byte as a transport
	// would send it. NoLeak searches it.
	Raw []byte
	// ProtocolError is set when the server answered with a JSON-RPC error
	// instead of a result. A tool failure must never do that.
	ProtocolError *mcp.JSONRPCErrorDetails
	// CallResult is the decoded result; nil on a protocol error.
	CallResult *mcp.CallToolResult
	// Envelope is the decoded error envelope of an isError result; nil on
	// success or when the error result carries none.
	Envelope *envelope.Envelope

	rawResult json.RawMessage
	sent      *leak.Sent // what the call's arguments held
}

// IsError reports whether the result has isError: true.
func (r *Result) IsError() bool { return r.CallResult != nil && r.CallResult.IsError }

// Text returns the text content items of the result, joined by newlines.
func (r *Result) Text() string {
	if r.CallResult == nil {
		return ""
	}
	var parts []string
	for _, c := range r.CallResult.Content {
		if t, ok := mcp.AsTextContent(c); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// StructuredContent returns the result's structuredContent as raw JSON, or
// nil when the result has none.
func (r *Result) StructuredContent() json.RawMessage {
	var m struct {
		SC json.RawMessage `json:"structuredContent"`
	}
	if len(r.rawResult) == 0 || json.Unmarshal(r.rawResult, &m) != nil || string(m.SC) == "null" {
		return nil
	}
	return m.SC
}

func (r *Result) describe() string {
	const max = 2000
	s := string(r.Raw)
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// ExpectSuccess checks that the call succeeded: a result without isError.
func (r *Result) ExpectSuccess() *Result {
	r.tb.Helper()
	switch {
	case r.ProtocolError != nil:
		r.tb.Errorf("%s: want success, got JSON-RPC error %d %q", r.Tool, r.ProtocolError.Code, r.ProtocolError.Message)
	case r.IsError():
		r.tb.Errorf("%s: want success, got isError result: %s", r.Tool, r.describe())
	}
	return r
}

// ExpectError checks that the call failed the way mcpguard promises: a
// result (never a JSON-RPC error) with isError: true whose first content
// item is text holding a valid envelope, decoded strictly (no unknown
// member, success false, a known error_type, a next_steps array, at least
// one step), with the given error_type, naming the tool; and whose
// structuredContent, when present, is the same envelope member by member.
func (r *Result) ExpectError(code envelope.Code) *Result {
	r.tb.Helper()
	switch {
	case r.ProtocolError != nil:
		r.tb.Errorf("%s: want %s envelope, got JSON-RPC error %d %q", r.Tool, code, r.ProtocolError.Code, r.ProtocolError.Message)
		return r
	case !r.IsError():
		r.tb.Errorf("%s: want %s envelope, got a successful result: %s", r.Tool, code, r.describe())
		return r
	case r.Envelope == nil:
		r.tb.Errorf("%s: want %s envelope, got an isError result without one: %s", r.Tool, code, r.describe())
		return r
	}
	text, ok := firstContentText(r.CallResult)
	if !ok {
		r.tb.Errorf("%s: the first content item is not the text envelope: %s", r.Tool, r.describe())
		return r
	}
	env, err := decodeStrict([]byte(text))
	if err != nil {
		r.tb.Errorf("%s: text envelope: %v", r.Tool, err)
		return r
	}
	if env.ErrorType != code {
		r.tb.Errorf("%s: error_type = %q, want %q (message %q)", r.Tool, env.ErrorType, code, env.Message)
	}
	if env.Tool != r.Tool {
		r.tb.Errorf("%s: envelope names tool %q", r.Tool, env.Tool)
	}
	if len(env.NextSteps) == 0 {
		r.tb.Errorf("%s: envelope has no next_steps", r.Tool)
	}
	if sc := r.StructuredContent(); sc != nil {
		sEnv, err := decodeStrict(sc)
		if err != nil {
			r.tb.Errorf("%s: structuredContent: %v", r.Tool, err)
			return r
		}
		a, _ := json.Marshal(env)
		b, _ := json.Marshal(sEnv)
		if !bytes.Equal(a, b) {
			r.tb.Errorf("%s: structuredContent differs from the text envelope:\n%s\n%s", r.Tool, b, a)
		}
	}
	return r
}

// decodeStrict decodes an envelope, refusing unknown members, a success
// true, an unknown error_type and a missing next_steps array.
func decodeStrict(b []byte) (*envelope.Envelope, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var e envelope.Envelope
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object: %w", b, err)
	}
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("%s does not decode strictly: %w", b, err)
	}
	switch {
	case e.Success:
		return nil, fmt.Errorf("%s has success true", b)
	case !e.ErrorType.Valid():
		return nil, fmt.Errorf("%s has an invalid error_type", b)
	case raw["next_steps"] == nil || string(raw["next_steps"]) == "null":
		return nil, fmt.Errorf("%s has no next_steps array", b)
	case raw["success"] == nil || raw["retryable"] == nil || raw["message"] == nil:
		return nil, fmt.Errorf("%s lacks a member every envelope carries", b)
	}
	return &e, nil
}

func firstContentText(res *mcp.CallToolResult) (string, bool) {
	if res == nil || len(res.Content) == 0 {
		return "", false
	}
	t, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		return "", false
	}
	return t.Text, true
}

// ExpectProtocolError checks that the server answered with a JSON-RPC error
// of the given code, as it should for an unknown tool or a malformed
// request.
func (r *Result) ExpectProtocolError(code int) *Result {
	r.tb.Helper()
	if r.ProtocolError == nil {
		r.tb.Errorf("%s: want JSON-RPC error %d, got a result: %s", r.Tool, code, r.describe())
	} else if r.ProtocolError.Code != code {
		r.tb.Errorf("%s: JSON-RPC error code = %d, want %d", r.Tool, r.ProtocolError.Code, code)
	}
	return r
}

// ExpectMessage checks that the envelope's message contains substr.
func (r *Result) ExpectMessage(substr string) *Result {
	r.tb.Helper()
	if r.Envelope == nil {
		r.tb.Errorf("%s: want a message containing %q, got no envelope: %s", r.Tool, substr, r.describe())
	} else if !strings.Contains(r.Envelope.Message, substr) {
		r.tb.Errorf("%s: message %q does not contain %q", r.Tool, r.Envelope.Message, substr)
	}
	return r
}

// ExpectNextStep checks that a next step contains substr. On an error it
// searches the envelope's next_steps; on a success, the result's text, where
// success hints appear.
func (r *Result) ExpectNextStep(substr string) *Result {
	r.tb.Helper()
	if r.Envelope != nil {
		for _, s := range r.Envelope.NextSteps {
			if strings.Contains(s, substr) {
				return r
			}
		}
		r.tb.Errorf("%s: no next step contains %q; next_steps = %q", r.Tool, substr, r.Envelope.NextSteps)
		return r
	}
	if r.CallResult != nil && !r.IsError() && strings.Contains(r.Text(), substr) {
		return r
	}
	r.tb.Errorf("%s: no next step contains %q: %s", r.Tool, substr, r.describe())
	return r
}

// ExpectField checks that the envelope lists field with the given rule
// among its field errors. An empty rule matches any rule.
func (r *Result) ExpectField(field, rule string) *Result {
	r.tb.Helper()
	if fe := r.Field(field); fe == nil {
		var got []string
		if r.Envelope != nil {
			for _, f := range r.Envelope.Fields {
				got = append(got, f.Field+":"+f.Rule)
			}
		}
		r.tb.Errorf("%s: no field error for %q; fields = %q", r.Tool, field, got)
	} else if rule != "" && fe.Rule != rule {
		r.tb.Errorf("%s: field %q failed rule %q, want %q", r.Tool, field, fe.Rule, rule)
	}
	return r
}

// Field returns the envelope's field error for field, or nil.
func (r *Result) Field(field string) *envelope.FieldError {
	if r.Envelope == nil {
		return nil
	}
	for i := range r.Envelope.Fields {
		if r.Envelope.Fields[i].Field == field {
			return &r.Envelope.Fields[i]
		}
	}
	return nil
}

// NoLeak checks that the raw response holds no stack trace, no source
// position, no absolute file path, no panic detail, no secret shape and
// none of the given secrets; see [Leaks]. A path the call's own arguments
// hold is no leak: the client sent it, and the redactor keeps it.
func (r *Result) NoLeak(secrets ...string) *Result {
	r.tb.Helper()
	for _, l := range leaks(r.Raw, r.sent, secrets) {
		r.tb.Errorf("%s: response leaks %s: %s", r.Tool, l, r.describe())
	}
	return r
}
