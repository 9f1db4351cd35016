package validate

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"unsafe"
	"weak"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/core/chain"
	"github.com/mcpguard/mcpguard/core/declared"
	"github.com/mcpguard/mcpguard/core/pipeline"
	"github.com/mcpguard/mcpguard/envelope"
)

// DeclaredSchemas enforces the input schema each tool already declares,
// the one clients see in tools/list, for servers written the way most are:
// a schema from mcp.WithString, mcp.WithNumber, mcp.Required, mcp.Enum,
// mcp.Min and the like (or a raw one), and a handler that reads
// req.GetString("path", ""). middleware.Default includes it; alone:
//
//	s.Use(validate.DeclaredSchemas())
//
// Before the handler runs, the call's arguments are checked against the
// tool's schema, found on the server at call time (server.ServerFromContext
// and its tools, the session's own tools first). A violation is answered
// with the validation_error envelope [Args] gives, with "fields", and the
// handler does not run. The arguments checked are the JSON text received
// (RawArguments), what mcp.BindArguments and typed handlers read, numbers
// exact; a member such a reader would read otherwise (a case variant of a
// declared property, a member sent twice) is refused, named.
//
// Never worse off: each schema is compiled once, again only when the tool
// is registered again; one that does not compile, is too large, refers
// outside itself or uses a dialect the library cannot check is not
// enforced for that tool, with one warning in the log at its first call.
// A string that is a lossless spelling of a declared number, integer or
// boolean ("5", "true") is accepted and converted, so that req.GetInt
// still reads it (logged at debug level); nothing else is coerced. A tool
// that declares nothing but "type": "object" is not checked, and a tool
// whose schema is [InputSchema]'s for a struct that [Args] or [Handler]
// binds is left to them when that tool's handler is theirs: [Handler],
// [StructuredHandler], or a handler [Args] wraps (middleware.Wrap(h,
// validate.Args[T]()) with Args outermost). A plain handler declared with
// InputSchema is checked like any other.
//
// opts are core/declared's options (declared.WithMaxDepth,
// declared.WithMaxBytes, declared.WithLogger), the check's own package.
func DeclaredSchemas(opts ...declared.Option) server.ToolHandlerMiddleware {
	return envelope.Gate(DeclaredStage(opts...).Gate)
}

// DeclaredStage returns the check [DeclaredSchemas] runs, configured by
// opts, as a stage of admission for a core/chain of several stages:
// middleware.Default runs it in its one layer, unless layers of yours
// (limits) sit before it. DeclaredSchemas(opts...) is the stage
// alone.
func DeclaredStage(opts ...declared.Option) chain.Admission[mcp.CallToolRequest] {
	return chain.Admission[mcp.CallToolRequest]{At: pipeline.Declared, Gate: &declaredLayer{opts: opts}}
}

// Admit checks the arguments of req against its tool's declared schema:
// req, with a lossless spelling of a number converted, or the
// validation_error that refuses it.
func (l *declaredLayer) Admit(ctx context.Context, req mcp.CallToolRequest) (mcp.CallToolRequest, error) {
	d := l.declared(ctx, req.Params.Name)
	if d == nil {
		return req, nil
	}
	converted, err := d.Check(ctx, req.Params.RawArguments, req.Params.Arguments, envelope.RendererFrom(ctx, nil).Redactor())
	if err != nil {
		return req, err
	}
	if converted != nil {
		req = withArguments(req, converted)
	}
	return req, nil
}

// withArguments is req with the converted arguments, as mcp-go would have
// decoded them from the wire.
func withArguments(req mcp.CallToolRequest, converted []byte) mcp.CallToolRequest {
	var args map[string]any
	if json.Unmarshal(converted, &args) == nil {
		req.Params.Arguments = args
		req.Params.RawArguments = converted
	}
	return req
}

// declaredLayer caches one compiled schema per server and tool.
type declaredLayer struct {
	opts  []declared.Option
	cache sync.Map // declaredKey -> *declaredEntry
}

type declaredKey struct {
	srv  weak.Pointer[server.MCPServer]
	name string
}

// declaredEntry is a tool definition's compiled schema. def keeps the
// definition's maps and slices alive, so that their addresses, which say
// whether the tool was registered again, cannot be reused meanwhile.
type declaredEntry struct {
	def     mcp.Tool
	handler server.ToolHandlerFunc
	id      definition
	d       *declared.Checker // nil: nothing to check, or the handler checks it
	once    sync.Once
}

// definition identifies one registration of a tool's input schema: a
// tool registered again is built again, with new maps and slices.
type definition struct {
	handler     *byte // the handler's closure: a tool may be added again with another
	props, defs unsafe.Pointer
	required    *string
	raw         *byte
	rawLen      int
	typ         string
	extra       any
}

func definitionOf(t *mcp.Tool, h server.ToolHandlerFunc) definition {
	s := t.InputSchema
	var handler *byte
	if h != nil {
		handler = closure(h)
	}
	return definition{
		handler:  handler,
		props:    reflect.ValueOf(s.Properties).UnsafePointer(),
		defs:     reflect.ValueOf(s.Defs).UnsafePointer(),
		required: unsafe.SliceData(s.Required),
		raw:      unsafe.SliceData(t.RawInputSchema),
		rawLen:   len(t.RawInputSchema),
		typ:      s.Type,
		extra:    comparableOrNil(s.AdditionalProperties),
	}
}

// comparableOrNil keeps additionalProperties when it is a bool, the usual
// case; a schema there changes with Properties' map anyway.
func comparableOrNil(v any) any {
	if b, ok := v.(bool); ok {
		return b
	}
	return nil
}

// declared returns the checker of the called tool's current definition,
// or nil when there is nothing to check.
func (l *declaredLayer) declared(ctx context.Context, name string) *declared.Checker {
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return nil
	}
	st, ok := sessionTool(ctx, name)
	if !ok {
		p := srv.GetTool(name)
		if p == nil {
			return nil
		}
		st = *p
	}
	key := declaredKey{srv: weak.Make(srv), name: name}
	id := definitionOf(&st.Tool, st.Handler)
	v, ok := l.cache.Load(key)
	if !ok || v.(*declaredEntry).id != id {
		v = &declaredEntry{def: st.Tool, handler: st.Handler, id: id}
		l.cache.Store(key, v)
	}
	e := v.(*declaredEntry)
	e.once.Do(func() { e.d = l.compile(&e.def, e.handler) })
	return e.d
}

// compile returns the check of the tool's declared schema, or nil when its
// handler binds and checks exactly that schema itself ([Handler],
// [StructuredHandler], a handler [Args] wraps): it is not checked twice,
// and the binder's conventions hold (an optional member sent as its zero
// is absent).
func (l *declaredLayer) compile(t *mcp.Tool, h server.ToolHandlerFunc) *declared.Checker {
	schema := []byte(t.RawInputSchema)
	if len(schema) == 0 {
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil
		}
		schema = b
	}
	if c := checkerOf(h); c != nil && c.Checks(schema) {
		return nil
	}
	return declared.New(t.Name, schema, l.opts...)
}

// sessionTool is the session's own definition of the tool, which mcp-go
// calls in preference to the server's.
func sessionTool(ctx context.Context, name string) (server.ServerTool, bool) {
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithTools); ok {
		if st, ok := s.GetSessionTools()[name]; ok {
			return st, true
		}
	}
	return server.ServerTool{}, false
}
