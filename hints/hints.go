package hints

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// MetaKey is the _meta key under which a successful result carries its
// next steps, as a JSON array of strings. It follows the MCP spec's _meta
// naming rules: a reverse-DNS prefix the project controls (the second
// label is neither "modelcontextprotocol" nor "mcp", so it is not
// reserved), a slash, and a name.
const MetaKey = "io.github.mcpguard/next_steps"

// Registry holds the rules of a set of tools and the options they run
// with. It is immutable and safe for concurrent use; one Registry can
// serve several servers.
type Registry struct {
	o     options
	rules []Rule
	tools map[string]*tool
	// lengths has bit n set when a rule's tool name is n bytes long (bit
	// 63 for every length from 63 on), so most calls of tools without a
	// rule skip the map lookup.
	lengths uint64
}

func lengthBit(n int) uint64 { return 1 << min(n, 63) }

// New returns a Registry for rules. Several rules for the same tool are
// merged, in order. It panics on a zero Rule.
func New(rules []Rule, opts ...Option) *Registry {
	r := &Registry{o: evaluate(opts), tools: map[string]*tool{}}
	for _, rule := range rules {
		if rule.tool == "" {
			panic("hints: zero Rule; build rules with hints.For")
		}
		r.rules = append(r.rules, rule)
		r.lengths |= lengthBit(len(rule.tool))
		t := r.tools[rule.tool]
		if t == nil {
			t = &tool{name: rule.tool, o: &r.o}
			r.tools[rule.tool] = t
		}
		t.add(rule.hints)
	}
	for _, t := range r.tools {
		t.finish()
	}
	return r
}

// Middleware returns the hints layer for rules with the default options:
//
//	s.Use(middleware.Default()...)
//	s.Use(hints.Middleware(
//		hints.For("shop_order",
//			hints.OnErrorIs(ErrSessionExpired, hints.Call("shop_authenticate", "with your API key, then retry")),
//			hints.OnError(envelope.NotFound, hints.Call("shop_search", "to find the order's ID")),
//		),
//	))
//
// See [Registry.Middleware].
func Middleware(rules ...Rule) server.ToolHandlerMiddleware { return New(rules).Middleware() }

// Middleware returns the hints layer. It works on either side of the
// envelope layer (middleware.Default):
//
//   - inside it (the order above), a Go error from the handler goes out
//     decorated with the tool's steps, which the envelope layer computes
//     once it has classified the error and puts first in next_steps;
//   - outside it, the envelope layer finds the same steps through the
//     call's context, so sentinel-keyed hints still see the Go error;
//   - a result with isError: true that no envelope layer has given steps to
//     (a handler's mcp.NewToolResultError, another layer's envelope) is
//     rendered as an envelope with the tool's steps first;
//   - a successful result of a tool with success hints is copied, with the
//     steps appended as a last text content item and under [MetaKey] in
//     _meta. Its structured content is left as it is.
//
// Calls of tools without a rule, and results no hint applies to, pass
// through untouched, without allocating.
func (r *Registry) Middleware() server.ToolHandlerMiddleware {
	if len(r.tools) == 0 {
		return func(next server.ToolHandlerFunc) server.ToolHandlerFunc { return next }
	}
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			name := req.Params.Name
			if r.lengths&lengthBit(len(name)) == 0 {
				return next(ctx, req)
			}
			t := r.tools[name]
			if t == nil {
				return next(ctx, req)
			}
			return t.call(ctx, req, next)
		}
	}
}

// Rules returns a copy of the registry's rules.
func (r *Registry) Rules() []Rule { return slices.Clone(r.rules) }

// hint is a Hint with its static steps redacted once.
type hint struct {
	Hint
	texts []string
}

// tool is the compiled rule set of one tool.
type tool struct {
	name     string
	o        *options
	errs     []hint
	oks      []hint
	replace  bool
	sentinel bool // some OnErrorIs target is not an envelope sentinel

	// okStatic is set when every success hint is static: the steps and the
	// text content item are then computed once.
	okStatic bool
	okSteps  []string
	okText   string

	warnOnce sync.Once
}

func (t *tool) add(hs []Hint) {
	for _, h := range hs {
		c := hint{Hint: h}
		for _, s := range h.steps {
			c.texts = append(c.texts, t.o.redactor.String(s.text))
		}
		switch h.kind {
		case kindCode, kindSentinel, kindErrorFunc:
			t.errs = append(t.errs, c)
			if h.kind == kindSentinel && h.targetCode == "" {
				t.sentinel = true
			}
		case kindSuccess, kindSuccessFunc:
			t.oks = append(t.oks, c)
		case kindReplace:
			t.replace = true
		}
	}
}

func (t *tool) finish() {
	t.okStatic = len(t.oks) > 0
	for _, h := range t.oks {
		if h.kind != kindSuccess {
			t.okStatic = false
		}
	}
	if t.okStatic {
		var steps []string
		for _, h := range t.oks {
			steps = append(steps, h.texts...)
		}
		t.okSteps = dedupe(steps)
		t.okText = successText(t.okSteps)
	}
}

// callState records whether an envelope layer inside this one asked for
// the call's steps, so they are not added twice.
type callState struct {
	t       *tool
	applied atomic.Bool
}

func (c *callState) steps(ctx context.Context, req mcp.CallToolRequest, code envelope.Code, err error) ([]string, bool) {
	c.applied.Store(true)
	return c.t.envelopeSteps(ctx, req, code, err)
}

func (t *tool) call(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc) (*mcp.CallToolResult, error) {
	outer := ctx
	var c *callState
	if len(t.errs) > 0 {
		c = &callState{t: t}
		ctx = envelope.ContextWithStepsFunc(ctx, c.steps)
	}
	res, err := next(ctx, req)
	if err != nil {
		if c == nil || c.applied.Load() {
			return res, err
		}
		// The envelope layer further out classifies err and then asks for
		// the steps, so code-keyed hints see the code its mappings give.
		// Hint functions get this call's context, not that layer's.
		return res, envelope.WithStepsFunc(err, func(_ context.Context, req mcp.CallToolRequest, code envelope.Code, err error) ([]string, bool) {
			return t.envelopeSteps(outer, req, code, err)
		})
	}
	if res == nil {
		return nil, nil
	}
	if res.NeedsInput() {
		// Not an outcome yet: the client answers and the tool runs again.
		return res, nil
	}
	if res.IsError {
		if c == nil || c.applied.Load() {
			return res, nil
		}
		return t.mergeResult(outer, req, res), nil
	}
	if len(t.oks) == 0 {
		return res, nil
	}
	return t.success(outer, req, res), nil
}

// envelopeSteps is the [envelope.StepsFunc] of the tool: the envelope
// layer calls it with the Go error and the code it classified it as.
func (t *tool) envelopeSteps(ctx context.Context, req mcp.CallToolRequest, code envelope.Code, err error) ([]string, bool) {
	msg := ""
	if err != nil {
		msg = safe.Error(err)
	}
	return t.errorSteps(ctx, req, Failure{Code: code, Err: err, Message: msg})
}

// errorSteps returns the tool's steps for a failure, redacted and
// de-duplicated, and whether they replace the code's defaults.
func (t *tool) errorSteps(ctx context.Context, req mcp.CallToolRequest, f Failure) ([]string, bool) {
	matched := false
	for i := range t.errs {
		if h := &t.errs[i]; h.kind == kindSentinel && t.matches(ctx, h, f) {
			matched = true
			break
		}
	}
	var out []string
	for i := range t.errs {
		h := &t.errs[i]
		switch h.kind {
		case kindSentinel:
			if t.matches(ctx, h, f) {
				out = append(out, h.texts...)
			}
		case kindCode:
			if !matched && h.code == f.Code {
				out = append(out, h.texts...)
			}
		case kindErrorFunc:
			var steps []Step
			if p := safe.Call(func() { steps = h.errFn(ctx, req, f) }); p != nil {
				t.panicked(ctx, "OnErrorFunc", p)
				continue
			}
			out = t.appendSteps(out, steps)
		}
	}
	if f.Err == nil && t.sentinel {
		t.warnOnce.Do(func() {
			safe.Log(ctx, t.o.log(), slog.LevelWarn,
				"mcpguard/hints: a failure reached the hints layer as a result, not as a Go error, so OnErrorIs hints keyed on the tool's own sentinels could not be evaluated; return the error as (nil, err) and keep an envelope layer (middleware.Default) in the chain",
				slog.String("tool", t.name))
		})
	}
	out = dedupe(out)
	return out, t.replace && len(out) > 0
}

// matches reports whether a sentinel hint applies to f. envelope's own
// sentinels stand for their code, whatever made the error that code; other
// sentinels need the Go error.
func (t *tool) matches(ctx context.Context, h *hint, f Failure) bool {
	if h.targetCode != "" && h.targetCode == f.Code {
		return true
	}
	if f.Err == nil {
		return false
	}
	var ok bool
	// Is calls the chain's Is methods, which are user code; its walk is
	// bounded, so a cyclic chain cannot hang the call.
	if p := safe.Call(func() { ok = envelope.Is(f.Err, h.target) }); p != nil {
		t.panicked(ctx, "OnErrorIs", p)
		return false
	}
	return ok
}

func (t *tool) appendSteps(out []string, steps []Step) []string {
	for _, s := range steps {
		text := s.text
		if text == "" {
			continue
		}
		// Cut far beyond maxStepLen before redacting, so that redaction
		// stays cheap and still sees whole any secret in what is kept.
		if len(text) > 4*maxStepLen {
			text = strings.ToValidUTF8(text[:4*maxStepLen], "")
		}
		out = append(out, t.o.redactor.String(text))
	}
	return out
}

func (t *tool) panicked(ctx context.Context, where string, p any) {
	safe.Log(ctx, t.o.log(), slog.LevelError, "mcpguard/hints: hint function panicked; the result goes out without its steps",
		slog.String("tool", t.name),
		slog.String("hint", where),
		slog.String("panic", safe.Value(p)),
		slog.String("panic_go_type", fmt.Sprintf("%T", p)))
}

// mergeResult renders an error result that no envelope layer gave the
// tool's steps to as an envelope with those steps first. It renders with
// the Renderer of the envelope layer serving the server, so the defaults
// the user configured there are the ones kept or replaced.
func (t *tool) mergeResult(ctx context.Context, req mcp.CallToolRequest, res *mcp.CallToolResult) *mcp.CallToolResult {
	r := envelope.RendererFrom(ctx, t.o.renderer)
	// Normalize keeps an envelope of ours and renders anything else (a
	// handler's own error result, whose text is not trusted) as that layer
	// would, so its code is known.
	base := r.Normalize(ctx, req, res)
	env, ok := envelope.FromResult(base)
	if !ok {
		return res
	}
	steps, replace := t.errorSteps(ctx, req, Failure{Code: env.ErrorType, Message: env.Message})
	if len(steps) == 0 {
		return base
	}
	existing := env.NextSteps
	if replace {
		existing = dropDefaults(existing, r.DefaultNextSteps(env.ErrorType, env.IncidentID))
	}
	env.NextSteps = dedupe(append(steps, existing...))
	if env.Tool == "" {
		env.Tool = req.Params.Name
	}
	out := r.Render(ctx, env)
	out.Meta = base.Meta
	// Keep what the result carried besides the envelope's own text.
	skipped := false
	for _, c := range base.Content {
		if !skipped && isText(c) {
			skipped = true
			continue
		}
		out.Content = append(out.Content, c)
	}
	return out
}

func isText(c mcp.Content) bool {
	switch v := c.(type) {
	case mcp.TextContent:
		return true
	case *mcp.TextContent:
		return v != nil
	}
	return false
}

// dropDefaults removes the renderer's default steps from steps.
func dropDefaults(steps, defaults []string) []string {
	out := make([]string, 0, len(steps))
	for _, s := range steps {
		if !slices.Contains(defaults, strings.TrimSpace(s)) {
			out = append(out, s)
		}
	}
	return out
}

// success returns a copy of res with the tool's success steps, or res
// itself when there are none.
func (t *tool) success(ctx context.Context, req mcp.CallToolRequest, res *mcp.CallToolResult) *mcp.CallToolResult {
	steps, text := t.okSteps, t.okText
	if !t.okStatic {
		var out []string
		for i := range t.oks {
			h := &t.oks[i]
			if h.kind == kindSuccess {
				out = append(out, h.texts...)
				continue
			}
			var ss []Step
			if p := safe.Call(func() { ss = h.okFn(ctx, req, res) }); p != nil {
				t.panicked(ctx, "OnSuccessFunc", p)
				continue
			}
			out = t.appendSteps(out, ss)
		}
		steps = dedupe(out)
		if len(steps) == 0 {
			return res
		}
		text = successText(steps)
	}
	out := *res
	if t.o.successText {
		content := make([]mcp.Content, 0, len(res.Content)+1)
		content = append(content, res.Content...)
		out.Content = append(content, mcp.TextContent{Type: mcp.ContentTypeText, Text: text})
	}
	out.Meta = withSteps(res.Meta, steps)
	return &out
}

func successText(steps []string) string {
	var b strings.Builder
	b.WriteString("Next steps:")
	for _, s := range steps {
		b.WriteString("\n- ")
		b.WriteString(s)
	}
	return b.String()
}

// withSteps returns a copy of m with steps under MetaKey, ahead of any
// steps a handler already put there.
func withSteps(m *mcp.Meta, steps []string) *mcp.Meta {
	out := &mcp.Meta{}
	fields := make(map[string]any, 1)
	if m != nil {
		out.ProgressToken = m.ProgressToken
		fields = make(map[string]any, len(m.AdditionalFields)+1)
		maps.Copy(fields, m.AdditionalFields)
	}
	merged := slices.Clone(steps)
	switch prev := fields[MetaKey].(type) {
	case []string:
		merged = dedupe(append(merged, prev...))
	case []any:
		for _, p := range prev {
			if s, ok := p.(string); ok {
				merged = append(merged, s)
			}
		}
		merged = dedupe(merged)
	}
	fields[MetaKey] = merged
	out.AdditionalFields = fields
	return out
}

// Bounds on what one call's hints can add, so a runaway hint function
// cannot flood the agent's context or make de-duplication quadratic.
const (
	maxSteps   = 32
	maxStepLen = 2000
)

// dedupe trims steps, truncates long ones, and drops empty and repeated
// ones, keeping the first maxSteps. It reuses steps' backing array.
func dedupe(steps []string) []string {
	out := steps[:0]
	for _, s := range steps {
		if len(out) == maxSteps {
			break
		}
		s = strings.TrimSpace(s)
		if len(s) > maxStepLen {
			s = strings.ToValidUTF8(s[:maxStepLen], "") + "…"
		}
		if s == "" || slices.Contains(out, s) {
			continue
		}
		out = append(out, s)
	}
	return out
}
