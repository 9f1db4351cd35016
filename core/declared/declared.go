package declared

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
	jskind "github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/internal/fields"
	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// Bounds on a declared schema and on the work one check may do.
const (
	// MaxSchemaBytes bounds the JSON text of a schema a tool
	// declares: a larger one is not enforced, so that a hostile or
	// generated tool definition cannot make compilation unbounded.
	MaxSchemaBytes = 256 << 10
	// maxDeclaredSchemaDepth bounds the schema's nesting, for the same reason.
	maxDeclaredSchemaDepth = 64
	// enumBudget bounds the argument bytes times the largest enum of the
	// schema: enum is checked by a linear scan per value, so this bounds
	// the comparisons of one call to a few million.
	enumBudget = 1 << 24
)

// Checker checks a call's arguments against the input schema one tool
// itself declares, the one clients see in tools/list. [New] compiles the
// schema once, with santhosh-tekuri/jsonschema/v6, and [Checker.Check]
// answers a violation with the same validation_error envelope and field
// errors core/validate's binder gives.
//
// It never makes a call fail because of the server's own schema: a schema
// that does not compile, is too large, refers to anything outside itself
// or uses a dialect the library cannot check turns enforcement off for the
// tool, with one warning in the log at the first call. It is safe for
// concurrent use.
type Checker struct {
	tool string
	o    options
	sch  *jsonschema.Schema
	off  error // why the schema is not enforced, found when compiling
	// stopped is set when a check finds the schema cannot be checked.
	stopped atomic.Bool
	maxEnum int
	names   []string       // the root's declared properties, for unknown members
	members *propertyNames // every declared property name, for case variants
	flat    *flatSchema    // nil: every call goes to the library
	warned  atomic.Bool
	// instances are compiled copies of the schema, each with its own
	// pattern budget, taken by one check at a time; src recompiles one
	// when all are in use (only for a schema with patterns: one without
	// has no budget to keep apart, and every check shares sch).
	mu        sync.Mutex
	instances []*instance
	src       []byte
}

// instance is one compiled copy of the schema and its pattern budget.
type instance struct {
	sch *jsonschema.Schema
	b   *budget
}

// New compiles schema, the JSON text of tool's declared input schema. It
// never fails: see [Checker.Enforced].
func New(tool string, schema []byte, opts ...Option) *Checker {
	d := &Checker{tool: tool, o: evaluate(opts)}
	if len(schema) > MaxSchemaBytes {
		d.off = fmt.Errorf("the schema is %d bytes, more than the %d enforced", len(schema), MaxSchemaBytes)
		return d
	}
	if trivialSchema(schema) {
		return d
	}
	first, off, err := compileInstance(schema)
	d.off = err
	if first != nil {
		d.sch = first.sch
		d.instances = []*instance{first}
		if hasPatterns(d.sch) {
			d.src = schema
		}
		d.warnDisabled(off)
		d.maxEnum = largestEnum(d.sch, map[*jsonschema.Schema]bool{})
		for name := range d.sch.Properties {
			d.names = append(d.names, name)
		}
		slices.Sort(d.names)
		d.members = declaredNames(d.sch)
		d.flat = flatten(d.sch)
	}
	return d
}

// Enforced reports whether calls are checked: false for a schema that is
// not enforced (see [Checker.Off]), and for one that declares nothing to
// check but an object ({"type": "object"}, with no properties), whose
// calls pass unchanged.
func (d *Checker) Enforced() bool { return d.sch != nil && !d.stopped.Load() }

// Off returns why the schema is not enforced, or nil.
func (d *Checker) Off() error {
	if d.off == nil && d.stopped.Load() {
		return errUncheckable
	}
	return d.off
}

var errUncheckable = errors.New("the schema cannot be checked: a $ref cycle that makes no progress, or the library failed")

// trivialSchema reports a schema that states nothing beyond "an object",
// in words for people at most: mcp.NewTool's default (which mcp-go lists
// with "properties": {} and "required": []), go-sdk's for a tool without
// arguments. The mcp-go front reads the same off mcp-go's tool (trivial in
// validate/declared.go), so a front and mcpguard-proxy in front of the
// same server pass the same calls unchanged.
func trivialSchema(schema []byte) bool {
	var m map[string]json.RawMessage
	if len(schema) > 4096 || json.Unmarshal(schema, &m) != nil || string(m["type"]) != `"object"` {
		return false
	}
	for k, v := range m {
		switch k {
		case "type", "title", "description", "$schema":
		case "properties":
			if s := string(bytes.TrimSpace(v)); s != "{}" && s != "null" {
				return false
			}
		case "required":
			if s := string(bytes.TrimSpace(v)); s != "[]" && s != "null" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// refuseLoader loads nothing: a validator never reaches the network or the
// file system, whatever a schema's $ref or $schema says.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: schemas outside the tool's own are never loaded", url)
}

const declaredURL = "mem:///mcpguard/declared-input-schema.json"

// compileInstance compiles an instance of schema, its patterns charged to
// a budget of its own, and returns the keywords it does not enforce.
func compileInstance(schema []byte) (*instance, []disabledKeyword, error) {
	b := &budget{}
	var sch *jsonschema.Schema
	var err error
	if safe.Call(func() { sch, err = compileDeclared(schema, b) }) != nil {
		err = errors.New("the JSON Schema library panicked while compiling it")
	}
	if sch == nil {
		return nil, nil, err
	}
	return &instance{sch: sch, b: b}, preparePatterns(sch), nil
}

// take returns an instance no other check holds.
func (d *Checker) take() *instance {
	if d.src == nil {
		return d.instances[0]
	}
	d.mu.Lock()
	if n := len(d.instances); n > 0 {
		in := d.instances[n-1]
		d.instances = d.instances[:n-1]
		d.mu.Unlock()
		return in
	}
	d.mu.Unlock()
	in, _, _ := compileInstance(d.src)
	return in
}

func (d *Checker) put(in *instance) {
	if d.src == nil {
		return
	}
	d.mu.Lock()
	d.instances = append(d.instances, in)
	d.mu.Unlock()
}

// hasPatterns reports a schema with a pattern or patternProperties
// anywhere.
func hasPatterns(root *jsonschema.Schema) bool {
	seen := map[*jsonschema.Schema]bool{}
	var walk func(s *jsonschema.Schema) bool
	walk = func(s *jsonschema.Schema) bool {
		if s == nil || seen[s] {
			return false
		}
		seen[s] = true
		if s.Pattern != nil || len(s.PatternProperties) > 0 {
			return true
		}
		return slices.ContainsFunc(subschemas(s), walk)
	}
	return walk(root)
}

// compileDeclared compiles a schema of at most MaxSchemaBytes,
// its patterns charged to b.
func compileDeclared(schema []byte, b *budget) (*jsonschema.Schema, error) {
	s := scanner{b: schema, maxDepth: maxDeclaredSchemaDepth}
	if !s.value(0) || s.tooDeep {
		return nil, fmt.Errorf("the schema is not JSON nested at most %d levels deep", maxDeclaredSchemaDepth)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	c.UseRegexpEngine(patternEngine(b))
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(declaredURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(declaredURL)
}

// largestEnum is the longest enum anywhere in the schema.
func largestEnum(s *jsonschema.Schema, seen map[*jsonschema.Schema]bool) int {
	if s == nil || seen[s] {
		return 0
	}
	seen[s] = true
	n := 0
	if s.Enum != nil {
		n = len(s.Enum.Values)
	}
	for _, sub := range subschemas(s) {
		n = max(n, largestEnum(sub, seen))
	}
	return n
}

func subschemas(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else, s.Items2020, s.Contains, s.PropertyNames, s.UnevaluatedItems, s.UnevaluatedProperties}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	out = append(out, s.PrefixItems...)
	for _, p := range s.Properties {
		out = append(out, p)
	}
	for _, p := range s.PatternProperties {
		out = append(out, p)
	}
	for _, p := range s.DependentSchemas {
		out = append(out, p)
	}
	if a, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
		out = append(out, a)
	}
	switch a := s.Items.(type) {
	case *jsonschema.Schema:
		out = append(out, a)
	case []*jsonschema.Schema:
		out = append(out, a...)
	}
	return out
}

// Check checks a call's arguments against the declared schema. raw is the
// arguments' JSON text as received, decoded the same arguments as the SDK
// decoded them (either may be nil; nil and null arguments are an empty
// object). The text, when there is one, is what is checked: it is what a
// handler binding with encoding/json reads, numbers exact, where an SDK's
// decoded map holds them as float64. Members that readers would read
// otherwise than the check (see [memberCheck]) are refused. It returns,
// when it converted a string that is a lossless spelling of a declared
// number, integer or boolean ("5", "true"), the converted arguments' JSON
// text; on a violation, a validation_error
// envelope error with the field errors. red redacts value previews
// (nil: redact.Default()).
func (d *Checker) Check(ctx context.Context, raw []byte, decoded any, red *redact.Redactor) (converted []byte, err error) {
	if !d.Enforced() {
		d.warnOnce(ctx)
		return nil, nil
	}
	raw, decoded = argumentText(raw, decoded)
	if fe := d.tooLarge(len(raw)); fe != nil {
		return nil, failFields(fe, 0)
	}
	if d.flat != nil && d.flat.fast(raw, decoded) {
		return nil, nil
	}
	doc, fe, more := d.document(raw, decoded)
	if fe != nil {
		return nil, failFields(fe, more)
	}
	verr := d.validate(doc)
	if verr == nil {
		return nil, nil
	}
	if verr == overBudget {
		return nil, failFields(d.overBudget(), 0)
	}
	if fixed, paths := convert(doc, verr, d.sch.Required); len(paths) > 0 {
		if verr = d.validate(fixed); verr == overBudget {
			return nil, failFields(d.overBudget(), 0)
		} else if verr == nil {
			d.logConverted(ctx, paths)
			b, mErr := json.Marshal(fixed)
			if mErr != nil {
				return nil, nil
			}
			return b, nil
		}
		doc = fixed
	}
	if unusable(verr) {
		d.stopped.Store(true)
		d.warnOnce(ctx)
		return nil, nil
	}
	if red == nil {
		red = redact.Default()
	}
	r := describer{doc: doc, names: d.names, red: red.ForCall(raw)}
	r.leaves(verr)
	r.sorted()
	return nil, failFields(r.fields, r.more)
}

// argumentText returns the arguments' text wherever there is one: raw, or
// decoded arguments that are JSON text themselves (an in-process caller's
// json.RawMessage), which the library would otherwise take for a value it
// cannot check. Empty text is none.
func argumentText(raw []byte, decoded any) ([]byte, any) {
	if len(raw) > 0 {
		return raw, decoded
	}
	switch a := decoded.(type) {
	case json.RawMessage:
		return a, nil
	case []byte:
		return a, nil
	}
	return nil, decoded
}

// tooLarge refuses arguments of n bytes of JSON that are more than the
// server accepts, or more than the schema's enums can check within
// enumBudget (n is at most maxBytes there, so the product cannot overflow).
func (d *Checker) tooLarge(n int) []envelope.FieldError {
	if n > d.o.maxBytes {
		return fatal("", "size", strconv.Itoa(d.o.maxBytes),
			fmt.Sprintf("the arguments are %d bytes of JSON, more than the %d this server accepts", n, d.o.maxBytes))
	}
	if n*d.maxEnum > enumBudget {
		limit := enumBudget / d.maxEnum
		return fatal("", "size", strconv.Itoa(limit),
			fmt.Sprintf("the arguments are %d bytes of JSON, more than the %d this tool's schema can check", n, limit))
	}
	return nil
}

// document decodes the arguments, as the binder does: nesting is checked
// in linear time before anything is decoded, and the size was checked by
// Check, or is here for arguments the SDK handed over decoded only.
func (d *Checker) document(raw []byte, decoded any) (doc any, fe []envelope.FieldError, more int) {
	onlyDecoded := raw == nil && decoded != nil
	if onlyDecoded {
		raw, _ = json.Marshal(decoded)
		if fe := d.tooLarge(len(raw)); fe != nil {
			return nil, fe, 0
		}
	}
	s := scanner{b: raw, maxDepth: d.o.maxDepth}
	s.ws()
	if s.i == len(raw) || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return map[string]any{}, nil, 0
	}
	if !s.value(0) || s.tooDeep {
		if s.tooDeep {
			return nil, fatal("", "depth", strconv.Itoa(d.o.maxDepth),
				fmt.Sprintf("the arguments nest objects and arrays more than %d levels deep", d.o.maxDepth)), 0
		}
		return nil, fatal("", "json", "", "the arguments are not valid JSON"), 0
	}
	if fe, more := ambiguousMembers(raw, d.members); len(fe) > 0 {
		return nil, fe, more
	}
	if onlyDecoded {
		return decoded, nil, 0
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fatal("", "json", "", "the arguments are not valid JSON"), 0
	}
	return doc, nil, 0
}

// broken stands for a failure of the library itself, not of the
// arguments.
var broken = &jsonschema.ValidationError{ErrorKind: &jskind.RefCycle{}}

// overBudget stands for a check that did not run a pattern within
// patternBudget.
var overBudget = &jsonschema.ValidationError{ErrorKind: &jskind.Pattern{}}

func (d *Checker) overBudget() []envelope.FieldError {
	return fatal("", "size", "", "the arguments' strings are too long to check against this tool's patterns; send shorter values")
}

func (d *Checker) validate(doc any) *jsonschema.ValidationError {
	in := d.take()
	if in == nil {
		return broken
	}
	// Only a schema with patterns has instances of its own, taken by one
	// check at a time; the one shared instance of a schema without them
	// has a budget no check spends, and must not be written by every
	// concurrent check.
	exclusive := d.src != nil
	if exclusive {
		in.b.left, in.b.over = patternBudget, false
	}
	var err error
	p := safe.Call(func() { err = in.sch.Validate(doc) })
	over := exclusive && in.b.over
	d.put(in)
	if p != nil {
		return broken
	}
	if over {
		return overBudget
	}
	var verr *jsonschema.ValidationError
	if errors.As(err, &verr) {
		return verr
	}
	if err != nil {
		return broken
	}
	return nil
}

// unusable reports an error that is the schema's fault, not the
// arguments': a $ref cycle that makes no progress, a library failure.
func unusable(verr *jsonschema.ValidationError) bool {
	switch verr.ErrorKind.(type) {
	case *jskind.RefCycle, *jskind.InvalidJsonValue:
		return true
	}
	for _, c := range verr.Causes {
		if unusable(c) {
			return true
		}
	}
	return false
}

func (d *Checker) warnOnce(ctx context.Context) {
	off := d.Off()
	if off == nil || d.warned.Swap(true) {
		return
	}
	safe.Log(ctx, d.o.logger, slog.LevelWarn, "mcpguard: the tool's declared input schema is not enforced",
		slog.String(logkey.Tool, d.tool),
		slog.String(logkey.Error, redact.String(safe.Error(off))))
}

// warnDisabled says, once, which keywords of the schema are not enforced
// because Go's RE2 cannot express them (core/internal/ecma): the rest of
// the schema is.
func (d *Checker) warnDisabled(off []disabledKeyword) {
	for _, k := range off {
		safe.Log(context.Background(), d.o.logger, slog.LevelWarn, "mcpguard: a keyword of the tool's declared input schema is not enforced",
			slog.String(logkey.Tool, d.tool),
			slog.String(logkey.Property, k.location),
			slog.String(logkey.Keyword, k.keyword),
			slog.String(logkey.Error, redact.String(safe.Error(k.err))))
	}
}

func (d *Checker) logConverted(ctx context.Context, paths []string) {
	safe.Log(ctx, d.o.logger, slog.LevelDebug, "mcpguard: converted string arguments to their declared types, or left out null optional ones",
		slog.String(logkey.Tool, d.tool),
		slog.Any(logkey.Coerced, paths))
}

// failFields is the validation_error of fields, as the binder renders it.
func failFields(fe []envelope.FieldError, more int) error { return fields.Fail(fe, more) }

// fatal is the one field error that stops a check.
func fatal(field, rule, param, msg string) []envelope.FieldError {
	return []envelope.FieldError{{Field: field, Rule: rule, Param: param, Message: msg}}
}
