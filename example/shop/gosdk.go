package shop

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
)

// NewGoSDKServer returns the same shop, over the same store, with the same
// tools, descriptions, schemas, errors and hints as [NewServer], served on
// the official Go SDK (github.com/modelcontextprotocol/go-sdk) through
// mcpguard's gosdk front:
//
//   - s.AddReceivingMiddleware(gosdk.Middleware(...)), added last so that
//     it is outermost, with the database's errors mapped as on mcp-go;
//   - gosdk.AddTool for every typed tool: the schema from the same tags,
//     the same validation_error envelope for invalid arguments;
//   - the shop's hints, the same rules as [Hints], through gosdk.Hints;
//   - shop_store_hours, the legacy tool, a low-level handler that builds
//     its own error result, normalized by the chain.
//
// Of the options, WithLogger, WithoutGuard, WithPanicTool, WithClock and
// WithGoSDKOptions apply; the others configure mcp-go and are ignored. WithoutGuard serves
// the tools as plain go-sdk would: go-sdk's own mcp.AddTool, its schema
// inference and validation, no chain, no hints.
func NewGoSDKServer(store *Store, opts ...Option) *gomcp.Server {
	if store == nil {
		panic("shop: NewGoSDKServer with a nil store")
	}
	o := options{now: time.Now}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	h := &handlers{store: store, sessions: newSessions(o.now)}
	s := gomcp.NewServer(&gomcp.Implementation{Name: "mcpguard-shop", Version: "1.0.0"},
		&gomcp.ServerOptions{Instructions: instructions, Logger: o.logger})
	add := goSDKAdder(s, o.plain)
	addTyped(add, ToolSearch, descSearch, textTool(h.searchOutput))
	addTyped(add, ToolGetProduct, descGetProduct, structured(h.productOutput))
	addTyped(add, ToolGetSchema, descGetSchema, textTool(func(ctx context.Context, _ noArgs) (any, error) {
		return h.schemaOutput(ctx)
	}))
	addTyped(add, ToolQuery, descQuery, textTool(h.queryOutput))
	addTyped(add, ToolAuthenticate, descAuthenticate, textTool(func(_ context.Context, args AuthenticateArgs) (any, error) {
		return h.authenticateOutput(args)
	}))
	addTyped(add, ToolSalesReport, descSalesReport, structured(h.salesReportOutput))
	s.AddTool(&gomcp.Tool{Name: ToolStoreHours, Description: descStoreHours, InputSchema: storeHoursSchema,
		Annotations: goSDKAnnotations(ToolStoreHours)}, goStoreHours)
	if o.panicTool {
		s.AddTool(&gomcp.Tool{Name: ToolDebugPanic, Description: descDebugPanic, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *gomcp.CallToolRequest) (*gomcp.CallToolResult, error) { panic(panicValue()) })
	}
	if !o.plain {
		s.AddReceivingMiddleware(gosdk.Hints(GoSDKHints()...))
		// Added last, so outermost: it sees every call first and every
		// result last, and contains a panic in any layer added before it.
		s.AddReceivingMiddleware(gosdk.Middleware(goSDKChainOptions(o)...))
	}
	return s
}

// instructions are the server's instructions, on both SDKs.
const instructions = "A shop catalog. Find products with shop_search, inspect one with shop_get_product, " +
	"and answer other questions with shop_get_schema then shop_query. Sales figures need shop_authenticate first."

// goSDKChainOptions configures gosdk.Middleware as NewServer configures
// middleware.Default: the same error mapping, the same logger, then the
// options WithGoSDKOptions gave (limits among them).
func goSDKChainOptions(o options) []gosdk.Option {
	var opts []gosdk.Option
	if o.logger != nil {
		opts = append(opts, gosdk.WithLogger(o.logger))
	}
	return append(append(opts,
		gosdk.WithMapping(sql.ErrNoRows, gosdk.NotFound),
		gosdk.WithMapper(func(err error) (gosdk.Code, bool) {
			if IsSQLError(err) {
				return gosdk.ExecutionFailed, true
			}
			return "", false
		}),
	), o.goSDKOpts...)
}

// noArgs are the arguments of a tool that takes none.
type noArgs struct{}

// goAdder registers the typed tools with gosdk.AddTool, or with go-sdk's
// own mcp.AddTool for the plain server.
type goAdder struct {
	s     *gomcp.Server
	plain bool
	v     *gosdk.Validator
}

// goSDKAdder returns the registrar, with the shop's validator: the same
// named patterns as on mcp-go (validate.Validator and gosdk.Validator are
// one type).
func goSDKAdder(s *gomcp.Server, plain bool) goAdder {
	return goAdder{s: s, plain: plain, v: newValidator()}
}

// textTool adapts a handler's work to a tool whose result is JSON text, as
// the mcp-go server's jsonResult sends it.
func textTool[In any](fn func(context.Context, In) (any, error)) gomcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, _ *gomcp.CallToolRequest, args In) (*gomcp.CallToolResult, any, error) {
		out, err := fn(ctx, args)
		if err != nil {
			return nil, nil, err
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, nil, err
		}
		return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: string(b)}}}, nil, nil
	}
}

// structured adapts a handler's work to a tool with structured output.
func structured[In, Out any](fn func(context.Context, In) (Out, error)) gomcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, _ *gomcp.CallToolRequest, args In) (*gomcp.CallToolResult, Out, error) {
		out, err := fn(ctx, args)
		return nil, out, err
	}
}

// addTyped registers a typed tool: with gosdk.AddTool, or with go-sdk's
// own mcp.AddTool on the plain server.
func addTyped[In, Out any](a goAdder, name, desc string, h gomcp.ToolHandlerFor[In, Out]) {
	t := &gomcp.Tool{Name: name, Description: desc, Annotations: goSDKAnnotations(name)}
	if a.plain {
		gomcp.AddTool(a.s, t, h)
		return
	}
	gosdk.AddTool(a.s, t, h, gosdk.WithValidator(a.v))
}

// goSDKAnnotations are the tool's behaviour hints for the go-sdk server,
// from the same table as the mcp-go server's.
func goSDKAnnotations(tool string) *gomcp.ToolAnnotations {
	ro, no := readOnly[tool], false
	return &gomcp.ToolAnnotations{ReadOnlyHint: ro, DestructiveHint: &no, IdempotentHint: ro, OpenWorldHint: &no}
}

// storeHoursSchema is the legacy tool's schema, written by hand.
var storeHoursSchema = json.RawMessage(`{"type":"object","properties":{"day":{"type":"string",` +
	`"description":"Day of the week, lower case.","enum":["monday","tuesday","wednesday","thursday","friday","saturday","sunday"]}},` +
	`"required":["day"],"additionalProperties":false}`)

// goStoreHours is the legacy tool on go-sdk: a low-level handler that
// decodes its arguments and builds its own error result.
func goStoreHours(_ context.Context, req *gomcp.CallToolRequest) (*gomcp.CallToolResult, error) {
	var args struct {
		Day string `json:"day"`
	}
	_ = json.Unmarshal(req.Params.Arguments, &args)
	text, ok := storeHoursText(args.Day)
	return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: text}}, IsError: !ok}, nil
}

// GoSDKHints are the shop's hints for the go-sdk server: the same rules as
// [Hints], instantiated with go-sdk's request and result types.
func GoSDKHints() []gosdk.Rule {
	return rules[*gomcp.CallToolRequest](func(res *gomcp.CallToolResult) string {
		if res == nil || len(res.Content) == 0 {
			return ""
		}
		if t, ok := res.Content[0].(*gomcp.TextContent); ok && t != nil {
			return t.Text
		}
		return ""
	})
}
