package middlewaretest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/core/wiretest"
	"github.com/mcpguard/mcpguard/envelope"
)

// Server is a real *server.MCPServer driven through HandleMessage, the
// path every transport ends in, as one client in one MCP session, as a
// transport gives every call its session (the repeated-failure guard
// counts a session's failures). It is safe for concurrent use.
type Server struct {
	tb   testing.TB
	srv  *server.MCPServer
	ctx  context.Context
	tool string
	ids  atomic.Int64
}

// sessions numbers the harness's sessions.
var sessions atomic.Int64

// newServer is the harness around s, in a session of its own.
func newServer(tb testing.TB, s *server.MCPServer, tool string) *Server {
	id := fmt.Sprintf("middlewaretest-%d", sessions.Add(1))
	out := &Server{tb: tb, srv: s, tool: tool, ctx: s.WithContext(context.Background(), server.NewInProcessSession(id, nil))}
	out.initialize()
	return out
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
	return newServer(tb, s, tool.Name)
}

// FromServer drives a server the caller built, with all its tools and
// layers. Call its tools with [Server.CallTool].
func FromServer(tb testing.TB, s *server.MCPServer) *Server {
	tb.Helper()
	if s == nil {
		tb.Fatal("middlewaretest: FromServer with a nil server")
	}
	return newServer(tb, s, "")
}

// WithoutSession returns a harness of the same server whose calls come
// with no MCP session, as on a stateless streamable HTTP server or a
// 2026-07-28 client over HTTP: a caller the repeated-failure guard cannot
// tell apart from others, and a span without mcp.session.id.
func (s *Server) WithoutSession() *Server {
	out := &Server{tb: s.tb, srv: s.srv, tool: s.tool, ctx: context.Background()}
	out.ids.Store(s.ids.Load())
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
	return s.decode(name, s.send(params, "tools/call"), args)
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
	resp := s.srv.HandleMessage(s.ctx, req)
	if resp == nil {
		s.tb.Fatalf("middlewaretest: %s got no response", method)
	}
	raw, err := json.Marshal(resp)
	if err != nil {
		s.tb.Fatalf("middlewaretest: encoding %s response: %v", method, err)
	}
	return raw
}

func (s *Server) decode(tool string, raw []byte, args any) *Result {
	s.tb.Helper()
	w, err := wiretest.Decode(s.tb, tool, raw, args)
	if err != nil {
		s.tb.Fatalf("middlewaretest: %v", err)
	}
	r := &Result{tb: s.tb, w: w, Tool: tool, Raw: raw}
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

	w *wiretest.Response // the SDK-free checks, shared with gosdktest
}

// IsError reports whether the result has isError: true.
func (r *Result) IsError() bool { return r.CallResult != nil && r.CallResult.IsError }

// Text returns the text content items of the result, joined by newlines.
func (r *Result) Text() string { return r.w.Text() }

// StructuredContent returns the result's structuredContent as raw JSON, or
// nil when the result has none.
func (r *Result) StructuredContent() json.RawMessage { return r.w.StructuredContent() }

// ExpectSuccess checks that the call succeeded: a result without isError.
func (r *Result) ExpectSuccess() *Result {
	r.tb.Helper()
	r.w.ExpectSuccess()
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
	r.w.ExpectError(code)
	return r
}

// ExpectProtocolError checks that the server answered with a JSON-RPC error
// of the given code, as it should for an unknown tool or a malformed
// request.
func (r *Result) ExpectProtocolError(code int) *Result {
	r.tb.Helper()
	r.w.ExpectProtocolError(code)
	return r
}

// ExpectMessage checks that the envelope's message contains substr.
func (r *Result) ExpectMessage(substr string) *Result {
	r.tb.Helper()
	r.w.ExpectMessage(substr)
	return r
}

// ExpectNextStep checks that a next step contains substr. On an error it
// searches the envelope's next_steps; on a success, the result's text, where
// success hints appear.
func (r *Result) ExpectNextStep(substr string) *Result {
	r.tb.Helper()
	r.w.ExpectNextStep(substr)
	return r
}

// ExpectField checks that the envelope lists field with the given rule
// among its field errors. An empty rule matches any rule.
func (r *Result) ExpectField(field, rule string) *Result {
	r.tb.Helper()
	r.w.ExpectField(field, rule)
	return r
}

// Field returns the envelope's field error for field, or nil.
func (r *Result) Field(field string) *envelope.FieldError { return r.w.Field(field) }

// NoLeak checks that the raw response holds no stack trace, no source
// position, no absolute file path, no panic detail, no secret shape and
// none of the given secrets; see [Leaks]. A path the call's own arguments
// hold is no leak: the client sent it, and the redactor keeps it.
func (r *Result) NoLeak(secrets ...string) *Result {
	r.tb.Helper()
	r.w.NoLeak(secrets...)
	return r
}
