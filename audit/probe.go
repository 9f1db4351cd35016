package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/internal/leak"
	"github.com/mcpguard/mcpguard/internal/str"
	"github.com/mcpguard/mcpguard/redact"
)

// probeCall is one invalid call.
type probeCall struct {
	what string         // e.g. `missing required field "query"`
	args map[string]any // the arguments sent
}

// noLoader refuses every external $ref, so compiling a server's schema
// never reads a file or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external $ref %q not loaded", url)
}

// compile compiles a tool's input schema for checking probe arguments.
func compile(t tool) (*jsonschema.Schema, error) {
	return compileSchema(t.schema)
}

// compileSchema compiles a schema from a definition; external $refs are
// never loaded.
func compileSchema(schema map[string]any) (*jsonschema.Schema, error) {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	const url = "mem:///mcpguard-audit/schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// rejects reports whether the schema rejects v.
func rejects(s *jsonschema.Schema, v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return false
	}
	return s.Validate(doc) != nil
}

// probeCalls builds the invalid calls for a tool, each checked against the
// tool's own schema: a call the schema would accept is never returned.
// Every call to a tool with required fields omits all of them, so a server
// that does not validate still lacks the input it needs to act.
func probeCalls(t tool) ([]probeCall, error) {
	s, err := compile(t)
	if err != nil {
		return nil, err
	}
	w := walker{tool: t}
	props, _ := t.schema["properties"].(map[string]any)
	var required []string
	if rs, ok := t.schema["required"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				required = append(required, s)
			}
		}
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Required properties first: a handler is likeliest to read those.
	isReq := map[string]bool{}
	for _, r := range required {
		isReq[r] = true
	}
	sort.SliceStable(keys, func(i, j int) bool { return isReq[keys[i]] && !isReq[keys[j]] })

	var calls []probeCall
	if len(required) > 0 {
		calls = append(calls, probeCall{what: fmt.Sprintf("missing required %s", quoteList(required)), args: map[string]any{}})
	}
	prop := func(k string) map[string]any {
		m := w.deref(props[k])
		if m == nil {
			return nil
		}
		m, _ = w.flatten(m)
		return m
	}
	for _, k := range keys {
		types := typesOf(prop(k))
		if len(types) == 0 {
			continue
		}
		if v, ok := wrongType(types); ok {
			calls = append(calls, probeCall{what: fmt.Sprintf("wrong type for %q (%s)", k, kindOf(v)), args: map[string]any{k: v}})
			break
		}
	}
	for _, k := range keys {
		if v, ok := outOfRange(prop(k)); ok {
			calls = append(calls, probeCall{what: fmt.Sprintf("out-of-range %q (%v)", k, v), args: map[string]any{k: v}})
			break
		}
	}
	var out []probeCall
	for _, c := range calls {
		if rejects(s, c.args) {
			out = append(out, c)
		}
	}
	return out, nil
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	word := "field"
	if len(names) > 1 {
		word = "fields"
	}
	return word + " " + strings.Join(q, ", ")
}

func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a number"
}

// wrongType returns a value of none of the given JSON types.
func wrongType(types []string) (any, bool) {
	allowed := map[string]bool{}
	for _, t := range types {
		allowed[t] = true
	}
	for _, c := range []struct {
		kinds []string
		v     any
	}{
		{[]string{"number", "integer"}, 12345},
		{[]string{"string"}, "mcpguard-audit-probe"},
		{[]string{"boolean"}, true},
		{[]string{"array"}, []any{}},
		{[]string{"object"}, map[string]any{}},
	} {
		ok := true
		for _, k := range c.kinds {
			if allowed[k] {
				ok = false
			}
		}
		if ok {
			return c.v, true
		}
	}
	return nil, false
}

// outOfRange returns a number just past a numeric property's bound.
func outOfRange(m map[string]any) (any, bool) {
	types := typesOf(m)
	integer, numeric := false, false
	for _, t := range types {
		switch t {
		case "integer":
			integer, numeric = true, true
		case "number":
			numeric = true
		}
	}
	if !numeric {
		return nil, false
	}
	num := func(k string) (float64, bool) { f, ok := m[k].(float64); return f, ok }
	if v, ok := num("maximum"); ok {
		if integer {
			return math.Floor(v) + 1, true
		}
		return v + 1, true
	}
	if v, ok := num("exclusiveMaximum"); ok {
		return v, true
	}
	if v, ok := num("minimum"); ok {
		if integer {
			return math.Ceil(v) - 1, true
		}
		return v - 1, true
	}
	if v, ok := num("exclusiveMinimum"); ok {
		return v, true
	}
	return nil, false
}

// leaked lists what text exposes of the server's internals, by the one
// list the redactor and middlewaretest.NoLeak use (internal/leak): a
// server that passes NoLeak passes this check, and the other way round.
func leaked(text string) []string {
	var out []string
	for _, m := range leak.Find(text) {
		if !slices.Contains(out, m.What) {
			out = append(out, m.What)
		}
	}
	return out
}

// snippet shortens and redacts text for a message: the report may end up
// in a CI log, so it never repeats what it flags.
func snippet(text string) string {
	s := strings.Join(strings.Fields(redact.String(text)), " ")
	return str.Clip(s, 100, "…")
}

// probe calls every probeable tool (rule D).
func (a *auditor) probe(ctx context.Context, c Caller) {
	a.probed = true
	for i, t := range a.tools {
		if ctx.Err() != nil {
			a.incomplete = fmt.Sprintf("the deadline passed after %d of %d tools were probed", i, len(a.tools))
			return
		}
		if a.o.skip[t.name] || t.schema == nil || a.names[t.name] > 1 {
			continue
		}
		calls, err := probeCalls(t)
		if err != nil {
			a.add(Finding{Rule: RuleErrors, Check: CheckNotProbeable, Severity: Info, Tool: t.name, Path: "inputSchema",
				Message: "not probed: the input schema does not compile, so no call can be proven invalid (" + snippet(err.Error()) + ")",
				Fix:     "make the input schema valid JSON Schema"})
			continue
		}
		if len(calls) == 0 {
			a.add(Finding{Rule: RuleErrors, Check: CheckNotProbeable, Severity: Info, Tool: t.name,
				Message: "not probed: the schema admits no invalid call (no required field, no typed or bounded property), and the probe never sends a valid one",
				Fix:     "nothing to do; rule D is checked on the tools that take arguments"})
			continue
		}
		if !a.probeTool(ctx, c, t, calls) {
			a.incomplete = fmt.Sprintf("the deadline passed while %q was probed, after %d of %d tools", t.name, i, len(a.tools))
			return
		}
	}
}

type problem struct {
	sev      Severity
	msg, fix string
	probes   []string
}

// probeTool sends a tool its invalid calls and records what the answers
// show. It reports false, recording nothing, when the run's deadline cut
// a call short: the tool is not to blame for that.
func (a *auditor) probeTool(ctx context.Context, c Caller, t tool, calls []probeCall) bool {
	var output *jsonschema.Schema
	if t.output != nil {
		output, _ = compileSchema(t.output) // an output schema that does not compile checks nothing
	}
	problems := map[string]*problem{}
	var order []string
	note := func(check string, sev Severity, what, msg, fix string) {
		p, ok := problems[check]
		if !ok {
			p = &problem{sev: sev, msg: msg, fix: fix}
			problems[check] = p
			order = append(order, check)
		}
		p.probes = append(p.probes, what)
	}
	for _, call := range calls {
		cctx, cancel := context.WithTimeout(ctx, a.o.timeout)
		var req mcp.CallToolRequest
		req.Params.Name = t.name
		req.Params.Arguments = call.args
		res, err := c.CallTool(cctx, req)
		cancel()
		if ctx.Err() != nil {
			return false
		}
		a.judge(call.what, res, err, note)
		if err == nil && res != nil && res.IsError && res.StructuredContent != nil && output != nil && rejects(output, res.StructuredContent) {
			note(CheckStructuredError, Error, call.what, "the error result carries structuredContent that does not match the tool's outputSchema; strict clients (the official TypeScript SDK) validate it even on errors and throw, so the model never sees the error",
				"leave structuredContent off error results of tools with an outputSchema (mcpguard's envelope does), or make the error match the schema")
		}
	}
	a.item(RuleErrors, t.name, "")
	for _, check := range order {
		p := problems[check]
		a.add(Finding{Rule: RuleErrors, Check: check, Severity: p.sev, Tool: t.name,
			Message: fmt.Sprintf("probe (%s): %s", strings.Join(p.probes, "; "), p.msg), Fix: p.fix})
	}
	return true
}

// mcpGoValidationPrefix starts the text of the isError result mcp-go sends
// when server.WithInputSchemaValidation rejects a call. It answers before
// any tool middleware runs, so adding mcpguard's chain does not change it.
const mcpGoValidationPrefix = "input schema validation failed:"

const schemaValidationFix = "drop server.WithInputSchemaValidation(): it answers before the tool's middleware runs, so no envelope is ever added; validate with mcpguard's validate layer instead (validate.Handler or validate.Args with validate.InputSchema), which answers validation_error envelopes with next_steps"

// badCode says what is wrong with a JSON-RPC error code on a tool
// failure, or "" for a standard code.
func badCode(code int) string {
	switch {
	case code == 0:
		return "which is not a JSON-RPC error code; clients reject the answer"
	case code == -32603:
		return "internal error: a protocol fault, which clients report as a broken server rather than a tool's answer"
	case code <= -32000 && code >= -32019:
		return "in the legacy implementation-defined range (-32000 to -32019), which the 2026-07-28 specification no longer assigns to tool failures"
	case code <= -32020 && code >= -32099:
		return "in the range the 2026-07-28 specification reserves (-32020 to -32099) for the protocol's own errors"
	}
	return ""
}

// judgeError judges a call that failed instead of answering: a JSON-RPC
// error (with its code when the Caller kept it) or no answer at all.
func judgeError(what string, err error, note noteFunc, envelopeFix string) {
	var rpc *ProtocolError
	var te *transport.Error
	switch {
	case errors.As(err, &rpc):
		note(CheckJSONRPC, Error, what, fmt.Sprintf("answered with JSON-RPC error %d instead of a tool result; the model never sees it and the agent stalls", rpc.Code), envelopeFix)
		if why := badCode(rpc.Code); why != "" {
			note(CheckJSONRPCCode, Error, what, fmt.Sprintf("the failure carries JSON-RPC code %d, %s", rpc.Code, why),
				"answer tool failures with an isError result; keep JSON-RPC errors for protocol faults, with the standard codes (-32602 for invalid params)")
		}
		if l := leaked(rpc.Message); len(l) > 0 {
			note(CheckLeak, Error, what, "the error leaks "+strings.Join(l, ", "), leakFix)
		}
	case errors.As(err, &te), errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		note(CheckNoAnswer, Error, what, "no answer: "+snippet(err.Error()), "answer every call, valid or not, with a result")
	default:
		note(CheckJSONRPC, Error, what, "answered with a JSON-RPC error ("+snippet(err.Error())+") instead of a tool result; the model never sees it and the agent stalls", envelopeFix)
		if l := leaked(err.Error()); len(l) > 0 {
			note(CheckLeak, Error, what, "the error leaks "+strings.Join(l, ", "), leakFix)
		}
	}
}

// errorFixes are rule D's fixes, worded for the server's language
// ([WithServerLanguage]): a Go server wraps its tools in mcpguard's
// middleware, any other runs behind mcpguard-proxy.
type errorFixes struct {
	envelope string // for an error that is not an envelope
	declared string // for a tool that acts on, or fails late on, arguments its schema rejects
}

func fixesFor(lang string) errorFixes {
	switch lang {
	case "go":
		return errorFixes{goEnvelopeFix, goDeclaredFix}
	case "":
		return errorFixes{
			"run the server behind mcpguard-proxy (mcpguard-proxy -- <the server's command>, any language); in a Go server, wrap its tools in mcpguard (s.Use(middleware.Default()...)); or return isError results whose text is a JSON envelope with error_type, message and next_steps",
			proxyDeclaredFix + "; in a Go server, " + strings.TrimPrefix(goDeclaredFix, declaredHead),
		}
	}
	return errorFixes{
		"run the server behind mcpguard-proxy (mcpguard-proxy -- <the server's command>), which answers every tool failure with an envelope, or return isError results whose text is a JSON envelope with error_type, message and next_steps",
		proxyDeclaredFix,
	}
}

const goEnvelopeFix = "wrap the server's tools in mcpguard (s.Use(middleware.Default()...)) or return isError results whose text is a JSON envelope with error_type, message and next_steps"

// noteFunc records one problem a probe call showed.
type noteFunc func(check string, sev Severity, what, msg, fix string)

// leakFix is the fix of every D.leak finding.
const leakFix = "log internals server-side under an incident ID; send the client a generic message (mcpguard's recover and redact layers do this)"

// declaredHead starts every fix for a tool that acts on, or fails late
// on, arguments its own schema rejects: enforce the declared schema first.
const declaredHead = "enforce the schema the tool already declares before its handler runs: "

const goDeclaredFix = declaredHead + "mcpguard's default chain does " +
	"(s.Use(middleware.Default()...) on mcp-go, s.AddReceivingMiddleware(gosdk.Middleware()) on go-sdk; validate.DeclaredSchemas alone), " +
	"answering validation_error with fields; or bind a struct with validate.Args / gosdk.AddTool"

const proxyDeclaredFix = declaredHead + "mcpguard-proxy does, answering validation_error with fields before the server sees the call; " +
	"or check the arguments first in the handler and answer validation_error"

func (a *auditor) judge(what string, res *mcp.CallToolResult, err error, note noteFunc) {
	if err != nil {
		judgeError(what, err, note, a.fixes.envelope)
		return
	}
	if res == nil {
		note(CheckNoAnswer, Error, what, "no result", "answer every call with a result")
		return
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			texts = append(texts, string(b))
		}
	}
	all := strings.Join(texts, "\n")
	if l := leaked(all); len(l) > 0 {
		note(CheckLeak, Error, what, "the answer leaks "+strings.Join(l, ", "), leakFix)
	}
	if !res.IsError {
		note(CheckAccepted, Error, what, "the tool answered success to arguments its own schema rejects, so it acts on input it declared invalid",
			a.fixes.declared)
		return
	}
	env, ok := envelope.FromResult(res)
	if !ok {
		first := ""
		if len(texts) > 0 {
			first = strings.TrimSpace(texts[0])
		}
		kind := "plain text"
		if strings.HasPrefix(first, "{") {
			kind = "JSON without an error_type from the taxonomy"
		}
		fix := a.fixes.envelope
		if strings.HasPrefix(first, mcpGoValidationPrefix) {
			kind = "mcp-go's own input validation text"
			fix = schemaValidationFix
		}
		note(CheckEnvelope, Error, what, fmt.Sprintf("isError: true, but the error is %s (%q); the agent has to parse prose and has no code to branch on", kind, snippet(first)), fix)
		return
	}
	if len(env.NextSteps) == 0 {
		note(CheckNextSteps, Warning, what, "the envelope has no next_steps, so the agent is not told how to recover",
			"add next_steps (mcpguard fills per-code defaults)")
	}
	switch env.ErrorType {
	case envelope.InternalError:
		note(CheckErrorType, Warning, what, "invalid arguments are answered with internal_error, so the agent retries the same mistake instead of fixing its arguments",
			a.fixes.declared)
	case envelope.ExecutionFailed, envelope.NotFound:
		note(CheckErrorType, Info, what, fmt.Sprintf("invalid arguments are answered with %s rather than validation_error", env.ErrorType),
			a.fixes.declared)
	}
}
