package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/internal/str"
)

// Caller is what the audit needs from a connected MCP client. A started and
// initialized *client.Client from mcp-go satisfies it, over any transport.
// A Caller that can list one page at a time (ListToolsByPage, as
// *client.Client can) is listed page by page within [Limits], and so is a
// [RawLister], whose definitions a baseline pins as the server sent them;
// one whose CallTool returns a [*ProtocolError] for a JSON-RPC error
// answer lets rule D judge the error's code.
type Caller interface {
	ListTools(ctx context.Context, req mcp.ListToolsRequest) (*mcp.ListToolsResult, error)
	CallTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error)
}

// Tools audits a tool list against rules A, B and C. Rule D needs a server
// to call; use [Server] or [Client] with [WithProbe] for it.
func Tools(tools []mcp.Tool, opts ...Option) *Report {
	o := newOptions(opts)
	ctx, cancel := context.WithTimeout(context.Background(), o.deadline)
	defer cancel()
	return newAuditor(o, listing{tools: tools}).static(ctx)
}

// Server audits the tools an in-process mcp-go server lists, exactly as a
// client receives them. With [WithProbe] it also calls them (rule D)
// through the server's full middleware chain, and sees JSON-RPC errors
// verbatim. This is the function a server's own tests use, through
// audittest.RequireServer.
func Server(ctx context.Context, s *server.MCPServer, opts ...Option) (*Report, error) {
	if s == nil {
		return nil, errors.New("audit: nil *server.MCPServer")
	}
	// An mcp-go server is written in Go, unless the caller says otherwise.
	return Client(ctx, &inProcess{s: s}, append([]Option{WithServerLanguage("go")}, opts...)...)
}

// Client audits the server behind a connected, initialized client. With
// [WithProbe] it also calls its tools (rule D).
//
// Tools are listed twice: definitions that change between the two calls,
// or come in another order, are reported under [RuleList].
//
// The whole audit ends by the deadline set with [WithDeadline]. Listing is
// bounded by [Limits]: when c can list one page at a time (as mcp-go's
// *client.Client can, with ListToolsByPage), pages, tools and bytes are
// counted as they arrive and the audit stops with an error at the first
// limit exceeded. An analysis or probe cut short by the deadline returns
// the report so far, marked [Report.Incomplete].
func Client(ctx context.Context, c Caller, opts ...Option) (*Report, error) {
	if c == nil {
		return nil, errors.New("audit: nil Caller")
	}
	o := newOptions(opts)
	ctx, cancel := context.WithTimeout(ctx, o.deadline)
	defer cancel()
	first, err := listTools(ctx, c, o.limits)
	if err != nil {
		return nil, fmt.Errorf("audit: tools/list: %w", err)
	}
	a := newAuditor(o, first)
	a.static(ctx)
	if a.incomplete == "" {
		again, err := listTools(ctx, c, o.limits)
		a.checkRelist(ctx, again, err)
	}
	if o.probe && a.incomplete == "" {
		a.probe(ctx, c)
	}
	return a.report(), nil
}

// pager lists one page of tools at a time; mcp-go's *client.Client does.
type pager interface {
	ListToolsByPage(ctx context.Context, req mcp.ListToolsRequest) (*mcp.ListToolsResult, error)
}

// RawLister is a [Caller] that returns one tools/list page as the server
// sent it: the result member of its answer. The audit then reads each
// definition from those bytes, and a baseline pins them as sent, as
// mcpguard-proxy --pin compares them at run time. mcp-go's client decodes
// a listing into its own types, which drop the schema keywords they do
// not model and add empty annotations: a baseline written from a Caller
// that is not a RawLister pins those, and matches only other such audits.
type RawLister interface {
	ListToolsRaw(ctx context.Context, req mcp.ListToolsRequest) (json.RawMessage, error)
}

// listing is what tools/list returned: the tools as mcp-go decodes them,
// each one's encoding (nil where it cannot be encoded) and, from a
// [RawLister], each as the server sent it (nil otherwise).
type listing struct {
	tools   []mcp.Tool
	encoded [][]byte
	raw     [][]byte
}

// listTools lists every tool within the limits. It returns each tool's
// encoding too, which counting the bytes needs and decoding reuses,
// unless the tools are counted as sent.
func listTools(ctx context.Context, c Caller, l Limits) (listing, error) {
	var size listSize
	next := pagesOf(c)
	if next == nil {
		res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			return listing{}, err
		}
		if err := size.add(l, res.Tools, nil); err != nil {
			return listing{}, err
		}
		return size.listing, nil
	}
	var (
		seen = map[mcp.Cursor]bool{}
		req  mcp.ListToolsRequest
	)
	for {
		if size.pages == l.Pages {
			return listing{}, fmt.Errorf("more than %d pages; the server's pagination does not end (raise Limits.Pages, --max-pages, if it is genuine)", l.Pages)
		}
		page, raw, err := next(ctx, req)
		if err != nil {
			return listing{}, err
		}
		if err := size.add(l, page.Tools, raw); err != nil {
			return listing{}, err
		}
		if page.NextCursor == "" {
			return size.listing, nil
		}
		if seen[page.NextCursor] {
			return listing{}, fmt.Errorf("page %d repeats the cursor %q; the server's pagination loops", size.pages, clip(string(page.NextCursor), 64))
		}
		seen[page.NextCursor] = true
		req.Params.Cursor = page.NextCursor
	}
}

// lister lists one page, with each tool as the server sent it when it can.
type lister func(context.Context, mcp.ListToolsRequest) (*mcp.ListToolsResult, [][]byte, error)

// pagesOf returns how c lists one page, or nil if it lists all at once.
func pagesOf(c Caller) lister {
	switch p := c.(type) {
	case RawLister:
		return func(ctx context.Context, req mcp.ListToolsRequest) (*mcp.ListToolsResult, [][]byte, error) {
			return rawPage(ctx, p, req)
		}
	case pager:
		return func(ctx context.Context, req mcp.ListToolsRequest) (*mcp.ListToolsResult, [][]byte, error) {
			res, err := p.ListToolsByPage(ctx, req)
			return res, nil, err
		}
	}
	return nil
}

// rawPage lists one page from r and decodes each tool as mcp-go's client
// does, keeping the bytes it was sent as.
func rawPage(ctx context.Context, r RawLister, req mcp.ListToolsRequest) (*mcp.ListToolsResult, [][]byte, error) {
	b, err := r.ListToolsRaw(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	var page struct {
		Tools      []json.RawMessage `json:"tools"`
		NextCursor mcp.Cursor        `json:"nextCursor"`
	}
	if err := json.Unmarshal(b, &page); err != nil {
		return nil, nil, fmt.Errorf("the tools/list result: %w", err)
	}
	res := &mcp.ListToolsResult{Tools: make([]mcp.Tool, len(page.Tools))}
	res.NextCursor = page.NextCursor
	raw := make([][]byte, len(page.Tools))
	for i, t := range page.Tools {
		if err := json.Unmarshal(t, &res.Tools[i]); err != nil {
			return nil, nil, fmt.Errorf("tool %d of the tools/list result: %w", i+1, err)
		}
		raw[i] = t
	}
	return res, raw, nil
}

// listSize counts what tools/list has returned so far against the limits,
// and keeps the listing.
type listSize struct {
	pages, count, bytes int
	listing
}

// add counts a page; raw holds its tools as sent, or is nil.
func (s *listSize) add(l Limits, page []mcp.Tool, raw [][]byte) error {
	s.pages++
	s.count += len(page)
	if s.count > l.Tools {
		return fmt.Errorf("more than %d tools listed (raise Limits.Tools, --max-tools, if they are genuine)", l.Tools)
	}
	s.tools = append(s.tools, page...)
	if raw != nil { // a lister gives every page's or none
		s.raw = append(s.raw, raw...)
	}
	for i := range page {
		var b []byte
		if raw != nil {
			b = raw[i] // counted as sent, and kept once: decoding encodes it again
			s.encoded = append(s.encoded, nil)
		} else {
			var err error
			b, err = json.Marshal(page[i])
			s.encoded = append(s.encoded, b) // nil if it fails: reported per tool by rule C
			if err != nil {
				continue
			}
		}
		s.bytes += len(b)
		if s.bytes > l.ListBytes {
			return fmt.Errorf("the tool definitions exceed %d bytes (raise Limits.ListBytes, --max-list-bytes, if they are genuine)", l.ListBytes)
		}
	}
	return nil
}

// clip cuts s to at most n bytes, for quoting server text in an error,
// never in the middle of a character.
func clip(s string, n int) string { return str.Clip(s, n, "…") }

// inProcess calls an *server.MCPServer through HandleMessage, so that a
// JSON-RPC error's message reaches the probe unchanged (mcp-go's client
// replaces standard error messages with sentinel errors).
type inProcess struct {
	s  *server.MCPServer
	id atomic.Int64
}

// ProtocolError is a JSON-RPC error answer, as the server sent it. A
// [Caller] returns it (or an error wrapping it) so that the probe sees the
// code and the message verbatim: mcp-go's client keeps only the message
// of codes it does not know, and replaces standard codes' messages.
type ProtocolError struct {
	// Code is the JSON-RPC error code.
	Code int
	// Message is the error's message.
	Message string
}

// Error renders the code and the message.
func (e *ProtocolError) Error() string {
	return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message)
}

func (p *inProcess) roundTrip(ctx context.Context, method string, params any, out any) error {
	req := map[string]any{"jsonrpc": "2.0", "id": p.id.Add(1), "method": method, "params": params}
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	resp := p.s.HandleMessage(ctx, b)
	if resp == nil {
		return errors.New("no response")
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
		return &ProtocolError{Code: msg.Error.Code, Message: msg.Error.Message}
	}
	return json.Unmarshal(msg.Result, out)
}

func (p *inProcess) ListTools(ctx context.Context, req mcp.ListToolsRequest) (*mcp.ListToolsResult, error) {
	page, _, err := rawPage(ctx, p, req)
	return page, err
}

// ListToolsRaw lists one page as a client receives it, so that
// [listTools] applies the limits and a baseline pins what is sent.
func (p *inProcess) ListToolsRaw(ctx context.Context, req mcp.ListToolsRequest) (json.RawMessage, error) {
	params := map[string]any{}
	if req.Params.Cursor != "" {
		params["cursor"] = req.Params.Cursor
	}
	var page json.RawMessage
	err := p.roundTrip(ctx, "tools/list", params, &page)
	return page, err
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
	output      map[string]any // the outputSchema object; nil if absent
	annotations map[string]any // nil if absent
	wire        map[string]any // the whole definition
	size        int            // bytes of the definition on the wire
	encoded     []byte         // the definition's encoding, when the listing kept it
	raw         []byte         // the definition as the server sent it, when known; what a baseline pins
	encodeErr   error
}

// decodeTools reads each tool as a client receives it, from its encoding
// when the listing has it. A large listing is decoded by one worker per
// CPU, each over its own share of the tools.
func decodeTools(l listing) []tool {
	out := make([]tool, len(l.tools))
	if len(l.encoded) != len(l.tools) {
		l.encoded = nil
	}
	if len(l.raw) != len(l.tools) {
		l.raw = nil
	}
	share := func(start, end int) {
		part := listing{tools: l.tools[start:end]}
		if l.encoded != nil {
			part.encoded = l.encoded[start:end]
		}
		if l.raw != nil {
			part.raw = l.raw[start:end]
		}
		decodeInto(out[start:end], part)
	}
	workers := min(runtime.GOMAXPROCS(0), len(l.tools)/decodeShare)
	if workers <= 1 {
		share(0, len(l.tools))
		return out
	}
	var wg sync.WaitGroup
	per := (len(l.tools) + workers - 1) / workers
	for start := 0; start < len(l.tools); start += per {
		end := min(start+per, len(l.tools))
		wg.Go(func() { share(start, end) })
	}
	wg.Wait()
	return out
}

// decodeShare is the fewest tools worth a decoding worker of their own.
const decodeShare = 256

// decodeInto decodes the listing's tools into out. A tool without an
// encoding is encoded with one encoder and buffer reused for all (the
// bytes json.Marshal would return, and its newline); a copy is kept as
// the bytes the tool is sent as, unless the listing has those. One
// wireDecoder reads them all as json.Unmarshal would.
func decodeInto(out []tool, l listing) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	var dec wireDecoder
	for i, t := range l.tools {
		d := tool{name: t.Name, description: t.Description}
		if l.raw != nil {
			d.raw = l.raw[i]
		}
		var b []byte
		if l.encoded != nil && l.encoded[i] != nil {
			b = l.encoded[i]
			d.encoded = b
		} else {
			buf.Reset()
			if err := enc.Encode(t); err != nil {
				d.encodeErr = err
				out[i] = d
				continue
			}
			b = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
			if d.raw == nil {
				d.raw = bytes.Clone(b) // what an mcp-go server sends for t
			}
		}
		d.size = len(b)
		v, err := dec.decode(b)
		d.wire, _ = v.(map[string]any)
		if err == nil {
			d.schema, _ = d.wire["inputSchema"].(map[string]any)
			d.output, _ = d.wire["outputSchema"].(map[string]any)
			d.annotations, _ = d.wire["annotations"].(map[string]any)
		}
		out[i] = d
	}
}

// auditor holds one audit's state.
type auditor struct {
	o        options
	tools    []tool
	names    map[string]int // name -> occurrences
	prefix   string
	detected bool
	findings []Finding
	items    map[Rule]map[itemKey]bool // rule -> item -> passed so far
	listed   map[Rule]int              // rule -> findings listed
	omitted  map[Rule]int              // rule -> findings over the limit
	probed   bool
	near     *nameIndex // built on the first near-miss search
	tokens   int        // estimated size of the tool list
	// incomplete says why the audit stopped early; "" when it did not.
	incomplete string
	fixes      errorFixes // rule D's, for the server's language
	// ctx is the run's context, which schema walks look at between
	// nodes; cut is set when it ended one mid-tool.
	ctx context.Context
	cut bool
	// scratch is reused from tool to tool, so that reading a clean
	// definition allocates little.
	scratch struct {
		words       wordList
		strings     stringWalk
		refs        stringWalk
		identifiers []string
	}
}

func newAuditor(o options, l listing) *auditor {
	a := &auditor{o: o, tools: decodeTools(l), names: map[string]int{}, items: map[Rule]map[itemKey]bool{},
		listed: map[Rule]int{}, omitted: map[Rule]int{}, ctx: context.Background(), fixes: fixesFor(o.language)}
	for _, t := range a.tools {
		a.names[t.name]++
	}
	// Sized for one item a tool for each static rule, and for rule C a
	// node per property, so that a large listing does not regrow them.
	nodes := 0
	for _, t := range a.tools {
		nodes += 1 + len(asObject(t.schema["properties"]))
	}
	for _, r := range []Rule{RuleNames, RuleDescriptions, RuleAnnotations, RulePoisoning} {
		a.items[r] = make(map[itemKey]bool, len(a.tools))
	}
	a.items[RuleSchemas] = make(map[itemKey]bool, nodes)
	return a
}

func (a *auditor) static(ctx context.Context) *Report {
	a.ctx = ctx
	a.checkNames()
	for i, t := range a.tools {
		if ctx.Err() != nil {
			a.incomplete = fmt.Sprintf("the deadline passed after the descriptions and schemas of %d of %d tools were checked", i, len(a.tools))
			break
		}
		a.checkDescription(t)
		a.checkSchema(t)
		if a.cut {
			a.incomplete = fmt.Sprintf("the deadline passed while the schema of tool %d of %d was checked", i+1, len(a.tools))
			break
		}
		a.checkNetworkRefs(t)
		a.checkAnnotations(t)
		a.checkPoisoning(t)
	}
	a.checkTokens()
	if a.o.baseline != nil {
		a.checkBaseline(a.o.baseline)
	}
	return a.report()
}

// item registers something a rule checks, for the score.
func (a *auditor) item(r Rule, toolName, path string) {
	m := a.items[r]
	if m == nil {
		m = map[itemKey]bool{}
		a.items[r] = m
	}
	k := keyOf(r, toolName, path)
	if _, ok := m[k]; !ok {
		m[k] = true
	}
}

// itemKey is what a rule scores: a tool, and for rule C a schema node.
type itemKey struct{ tool, path string }

func keyOf(r Rule, toolName, path string) itemKey {
	if r != RuleSchemas {
		path = ""
	}
	return itemKey{toolName, path}
}

// full reports whether rule r lists no more findings: a caller may then
// pass [auditor.add] a finding without its message and fix, which would
// only be counted.
func (a *auditor) full(r Rule) bool {
	return a.listed[r] >= a.o.limits.FindingsPerRule
}

// add records a finding: listed while its rule is under the findings
// limit, counted in Omitted beyond it. Either way it counts for the score.
func (a *auditor) add(f Finding) {
	if a.listed[f.Rule] < a.o.limits.FindingsPerRule {
		a.listed[f.Rule]++
		a.findings = append(a.findings, f)
	} else {
		a.omitted[f.Rule]++
	}
	if f.Severity >= Warning {
		a.item(f.Rule, f.Tool, f.Path)
		a.items[f.Rule][keyOf(f.Rule, f.Tool, f.Path)] = false
	}
}

// addText records f with the message and fix that text returns, built
// only when the finding is listed: one over the per-rule limit is only
// counted, and a large listing has tens of thousands of those.
func (a *auditor) addText(f Finding, text func() (msg, fix string)) {
	if !a.full(f.Rule) {
		f.Message, f.Fix = text()
	}
	a.add(f)
}

func (a *auditor) report() *Report {
	r := &Report{
		Server:          a.o.serverName,
		Prefix:          a.prefix,
		PrefixDetected:  a.detected,
		Probed:          a.probed,
		FailOn:          a.o.failOn,
		Findings:        append([]Finding(nil), a.findings...),
		Incomplete:      a.incomplete,
		EstimatedTokens: a.tokens,
		listed:          a.tools,
	}
	for rule, n := range a.omitted {
		if r.Omitted == nil {
			r.Omitted = map[Rule]int{}
		}
		r.Omitted[rule] = n
	}
	for _, t := range a.tools {
		r.Tools = append(r.Tools, t.name)
	}
	sort.Strings(r.Tools)
	sortFindings(r.Findings)
	if a.o.ignore != nil {
		r.Findings, r.Ignored, r.UnusedIgnores = a.o.ignore.apply(r.Findings)
	}
	r.Scores = a.scores()
	return r
}
