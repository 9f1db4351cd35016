package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Caller is what the audit needs from a connected MCP client. A started and
// initialized *client.Client from mcp-go satisfies it, over any transport.
type Caller interface {
	ListTools(ctx context.Context, req mcp.ListToolsRequest) (*mcp.ListToolsResult, error)
	CallTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error)
}

// Tools audits a tool list against rules A, B and C. Rule D needs a server
// to call; use [Server] or [Client] with [WithProbe] for it.
func Tools(tools []mcp.Tool, opts ...Option) *Report {
	o := newOptions(opts)
	return newAuditor(o, tools).static()
}

// Server audits the tools an in-process mcp-go server lists, exactly as a
// client receives them. With [WithProbe] it also calls them (rule D)
// through the server's full middleware chain, and sees JSON-RPC errors
// verbatim. This is the function a server's own tests use; see also
// [RequireServer].
func Server(ctx context.Context, s *server.MCPServer, opts ...Option) (*Report, error) {
	if s == nil {
		return nil, errors.New("audit: nil *server.MCPServer")
	}
	return Client(ctx, &inProcess{s: s}, opts...)
}

// Client audits the server behind a connected, initialized client. With
// [WithProbe] it also calls its tools (rule D).
func Client(ctx context.Context, c Caller, opts ...Option) (*Report, error) {
	if c == nil {
		return nil, errors.New("audit: nil Caller")
	}
	o := newOptions(opts)
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, fmt.Errorf("audit: tools/list: %w", err)
	}
	a := newAuditor(o, res.Tools)
	r := a.static()
	if o.probe {
		a.probe(ctx, c)
		r = a.report()
	}
	return r, nil
}

// inProcess calls an *server.MCPServer through HandleMessage, so that a
// JSON-RPC error's message reaches the probe unchanged (mcp-go's client
// replaces standard error messages with sentinel errors).
type inProcess struct {
	s  *server.MCPServer
	id atomic.Int64
}

// rpcError is a JSON-RPC error answer, as the server sent it.
type rpcError struct {
	Code    int
	Message string
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

func (p *inProcess) roundTrip(ctx context.Context, method string, params any, out any) error {
	req := map[string]any{"jsonrpc": "2.0", "id": p.id.Add(1), "method": method, "params": params}
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	resp := p.s.HandleMessage(ctx, b)
	if resp == nil {
		return errors.New("audit: no response")
	}
	raw, err := json.Marshal(resp)
	if err != nil {
		return err
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		return err
	}
	if msg.Error != nil {
		return &rpcError{Code: msg.Error.Code, Message: msg.Error.Message}
	}
	return json.Unmarshal(msg.Result, out)
}

func (p *inProcess) ListTools(ctx context.Context, _ mcp.ListToolsRequest) (*mcp.ListToolsResult, error) {
	var all mcp.ListToolsResult
	params := map[string]any{}
	for range 1000 {
		var page mcp.ListToolsResult
		if err := p.roundTrip(ctx, "tools/list", params, &page); err != nil {
			return nil, err
		}
		all.Tools = append(all.Tools, page.Tools...)
		if page.NextCursor == "" {
			break
		}
		params = map[string]any{"cursor": page.NextCursor}
	}
	return &all, nil
}

func (p *inProcess) CallTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var res mcp.CallToolResult
	params := map[string]any{"name": req.Params.Name, "arguments": req.Params.Arguments}
	if err := p.roundTrip(ctx, "tools/call", params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// tool is a tool definition as a client sees it on the wire.
type tool struct {
	name        string
	description string
	schema      map[string]any // the inputSchema object; nil if absent or not an object
	encodeErr   error
}

func decodeTools(tools []mcp.Tool) []tool {
	out := make([]tool, 0, len(tools))
	for _, t := range tools {
		d := tool{name: t.Name, description: t.Description}
		b, err := json.Marshal(t)
		if err != nil {
			d.encodeErr = err
			out = append(out, d)
			continue
		}
		var wire struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(b, &wire); err == nil && len(wire.InputSchema) > 0 {
			var m map[string]any
			if json.Unmarshal(wire.InputSchema, &m) == nil {
				d.schema = m
			}
		}
		out = append(out, d)
	}
	return out
}

// auditor holds one audit's state.
type auditor struct {
	o        options
	tools    []tool
	names    map[string]int // name -> occurrences
	prefix   string
	detected bool
	findings []Finding
	items    map[Rule]map[string]bool // rule -> item key -> passed so far
	probed   bool
}

func newAuditor(o options, tools []mcp.Tool) *auditor {
	a := &auditor{o: o, tools: decodeTools(tools), names: map[string]int{}, items: map[Rule]map[string]bool{}}
	for _, t := range a.tools {
		a.names[t.name]++
	}
	return a
}

func (a *auditor) static() *Report {
	a.checkNames()
	for _, t := range a.tools {
		a.checkDescription(t)
		a.checkSchema(t)
	}
	return a.report()
}

// item registers something a rule checks, for the score.
func (a *auditor) item(r Rule, toolName, path string) {
	m := a.items[r]
	if m == nil {
		m = map[string]bool{}
		a.items[r] = m
	}
	k := itemKey(r, toolName, path)
	if _, ok := m[k]; !ok {
		m[k] = true
	}
}

func itemKey(r Rule, toolName, path string) string {
	if r != RuleSchemas {
		path = ""
	}
	return toolName + "\x00" + path
}

func (a *auditor) add(f Finding) {
	a.findings = append(a.findings, f)
	if f.Severity >= Warning {
		a.item(f.Rule, f.Tool, f.Path)
		a.items[f.Rule][itemKey(f.Rule, f.Tool, f.Path)] = false
	}
}

func (a *auditor) report() *Report {
	r := &Report{
		Server:         a.o.serverName,
		Prefix:         a.prefix,
		PrefixDetected: a.detected,
		Probed:         a.probed,
		FailOn:         a.o.failOn,
		Findings:       append([]Finding(nil), a.findings...),
	}
	for _, t := range a.tools {
		r.Tools = append(r.Tools, t.name)
	}
	sort.Strings(r.Tools)
	sortFindings(r.Findings)
	r.Scores = a.scores()
	return r
}
