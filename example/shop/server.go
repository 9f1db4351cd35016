package shop

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	corehints "github.com/mcpguard/mcpguard/core/hints"
	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/hints"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/validate"
)

// Option configures [NewServer].
type Option func(*options)

type options struct {
	logger     *slog.Logger
	plain      bool
	panicTool  bool
	now        func() time.Time
	serverOpts []server.ServerOption
	outer      []server.ToolHandlerMiddleware
	chainOpts  []middleware.Option
	goSDKOpts  []gosdk.Option
}

// WithServerOptions passes options to server.NewMCPServer, such as
// server.WithHooks.
func WithServerOptions(opts ...server.ServerOption) Option {
	return func(o *options) { o.serverOpts = append(o.serverOpts, opts...) }
}

// WithOuterLayers installs layers outside the mcpguard chain, such as
// otel.Middleware, which must see what the client finally receives.
func WithOuterLayers(layers ...server.ToolHandlerMiddleware) Option {
	return func(o *options) { o.outer = append(o.outer, layers...) }
}

// WithChainOptions configures middleware.Default further, such as
// middleware.WithLimits.
func WithChainOptions(opts ...middleware.Option) Option {
	return func(o *options) { o.chainOpts = append(o.chainOpts, opts...) }
}

// WithGoSDKOptions configures gosdk.Middleware of [NewGoSDKServer]
// further, such as gosdk.WithLimits: the go-sdk twin of
// [WithChainOptions].
func WithGoSDKOptions(opts ...gosdk.Option) Option {
	return func(o *options) { o.goSDKOpts = append(o.goSDKOpts, opts...) }
}

// WithLogger sends the chain's records (one per call, and the detail of
// every internal error under its incident ID) to l.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithoutGuard serves the same tools as plain mcp-go would: no mcpguard
// chain and no hints (validation, being per tool, stays). It exists to
// compare, as the demo and the load test do; never serve it.
func WithoutGuard() Option { return func(o *options) { o.plain = true } }

// WithPanicTool registers shop_debug_panic, a tool that panics, for
// fault-injection tests.
func WithPanicTool() Option { return func(o *options) { o.panicTool = true } }

// WithClock sets the clock sessions expire by.
func WithClock(now func() time.Time) Option {
	if now == nil {
		panic("shop: WithClock with a nil clock")
	}
	return func(o *options) { o.now = now }
}

type handlers struct {
	store    *Store
	sessions *sessions
}

// NewServer returns the shop's MCP server over store. It shows mcpguard
// adopted the way a real codebase adopts it:
//
//   - s.Use(middleware.Default(...)...) for every tool, with the
//     database's own errors mapped: sql.ErrNoRows to not_found, SQLite
//     errors to execution_failed;
//   - s.Use(hints.Middleware(...)) with per-tool next steps, on errors and
//     on successes (shop_query's three-way pagination hint);
//   - validate.Args[T] on shop_search and shop_query, whose handlers stay
//     plain mcp-go handlers;
//   - validate.Handler[T] on shop_authenticate, a typed handler;
//   - validate.StructuredHandler[In, Out] on shop_get_product and
//     shop_sales_report, typed results sent as structuredContent that
//     matches the tools' validate.OutputSchema;
//   - shop_store_hours, a legacy tool left exactly as it was written.
func NewServer(store *Store, opts ...Option) *server.MCPServer {
	if store == nil {
		panic("shop: NewServer with a nil store")
	}
	o := options{now: time.Now}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	h := &handlers{store: store, sessions: newSessions(o.now)}
	v := newValidator()
	vopt := validate.WithValidator(v)
	// Where a tool's own result breaks its outputSchema, the incident's
	// detail goes to the server's log.
	var envOpts validate.Option
	if o.logger != nil {
		envOpts = validate.WithEnvelopeOptions(envelope.WithLogger(o.logger))
	}

	s := server.NewMCPServer("mcpguard-shop", "1.0.0", append([]server.ServerOption{
		server.WithToolCapabilities(false),
		server.WithInstructions("A shop catalog. Find products with shop_search, inspect one with shop_get_product, " +
			"and answer other questions with shop_get_schema then shop_query. Sales figures need shop_authenticate first."),
	}, o.serverOpts...)...)
	if len(o.outer) > 0 {
		s.Use(o.outer...)
	}
	if !o.plain {
		var chainOpts []middleware.Option
		if o.logger != nil {
			chainOpts = append(chainOpts, middleware.WithLogger(o.logger))
		}
		chainOpts = append(chainOpts, middleware.WithEnvelopeOptions(
			envelope.WithMapping(sql.ErrNoRows, envelope.NotFound),
			envelope.WithMapper(func(err error) (envelope.Code, bool) {
				if IsSQLError(err) {
					return envelope.ExecutionFailed, true
				}
				return "", false
			}),
		))
		s.Use(middleware.Default(append(chainOpts, o.chainOpts...)...)...)
		s.Use(hints.Middleware(Hints()...))
	}

	s.AddTool(searchTool(v), middleware.Wrap(h.search, validate.Args[SearchArgs](vopt)))
	s.AddTool(getProductTool(v), validate.StructuredHandler(h.getProduct, vopt, envOpts))
	s.AddTool(getSchemaTool(), h.getSchema)
	s.AddTool(queryTool(v), middleware.Wrap(h.query, validate.Args[QueryArgs](vopt)))
	s.AddTool(authenticateTool(v), validate.Handler(h.authenticate, vopt))
	s.AddTool(salesReportTool(v), validate.StructuredHandler(h.salesReport, vopt, envOpts))
	s.AddTool(storeHoursTool(), storeHours)
	if o.panicTool {
		s.AddTool(debugPanicTool(), debugPanic)
	}
	return s
}

// Hints returns the shop's next steps, per tool. They name tools with
// hints.Call, so a test can prove every tool they name exists.
func Hints() []hints.Rule {
	return rules[mcp.CallToolRequest](func(res *mcp.CallToolResult) string {
		if res == nil || len(res.Content) == 0 {
			return ""
		}
		t, _ := mcp.AsTextContent(res.Content[0])
		if t == nil {
			return ""
		}
		return t.Text
	})
}

// rules are the shop's hints, written once for both SDKs: Req and Res are
// the SDK's request and result types, and text reads a result's first text
// item. The mcp-go server uses them as []hints.Rule, the go-sdk server as
// []gosdk.Rule: the same types of core/hints, instantiated.
func rules[Req, Res any](text func(Res) string) []corehints.Rule[Req, Res] {
	decode := func(res Res, v any) bool { return json.Unmarshal([]byte(text(res)), v) == nil }
	return []corehints.Rule[Req, Res]{
		corehints.For(ToolSearch,
			corehints.OnSuccessFunc(func(_ context.Context, _ Req, res Res) []corehints.Step {
				var out struct {
					Count int `json:"count"`
				}
				if decode(res, &out) && out.Count == 0 {
					return []corehints.Step{
						corehints.Call(ToolSearch, "again with fewer words, without category, or a higher max_price_cents"),
						corehints.Call(ToolQuery, "for questions a text search cannot answer"),
					}
				}
				return []corehints.Step{corehints.Call(ToolGetProduct, "with one of these IDs for its full record and stock")}
			}),
		),
		corehints.For(ToolGetProduct,
			corehints.OnError[Req, Res](envelope.NotFound, corehints.Call(ToolSearch, "to find the product's current ID, then call shop_get_product with it")),
			corehints.OnSuccess[Req, Res](corehints.Call(ToolSearch, "with this product's category to suggest alternatives if it is sold out")),
		),
		corehints.For(ToolQuery,
			corehints.OnError[Req, Res](envelope.ExecutionFailed, corehints.Call(ToolGetSchema, "to check table and column names, then fix the SQL")),
			// The seed's three-way pattern: what to do next depends on
			// what the query returned.
			corehints.OnSuccessFunc(func(_ context.Context, _ Req, res Res) []corehints.Step {
				var p Page
				if !decode(res, &p) {
					return nil
				}
				return QueryNextSteps(p)
			}),
		),
		corehints.For(ToolSalesReport,
			corehints.OnErrorIs[Req, Res](ErrSessionExpired, corehints.Call(ToolAuthenticate, "with your username and API key to get a new session_token, then retry")),
			corehints.OnErrorIs[Req, Res](ErrNotManager, corehints.Text("Ask the user to sign in with a manager account; a clerk's session cannot see sales.")),
		),
		corehints.For(ToolAuthenticate,
			corehints.OnError[Req, Res](envelope.AuthenticationFailed, corehints.Text("Ask the user for the correct username and API key; do not guess them.")),
			corehints.OnSuccess[Req, Res](corehints.Call(ToolSalesReport, "with this session_token")),
		),
	}
}

// QueryNextSteps are shop_query's success hints, the seed's pattern:
// no rows, more rows, or all rows returned.
func QueryNextSteps(p Page) []hints.Step {
	switch {
	case p.Total == 0:
		return []hints.Step{
			hints.Text("No rows returned: try the question with different filters."),
			hints.Call(ToolGetSchema, "to verify table and column names"),
		}
	case p.HasMore:
		return []hints.Step{
			hints.Call(ToolQuery, "with page=%d to continue (%d of %d rows returned so far)", p.Page+1, (p.Page-1)*p.PageSize+len(p.Rows), p.Total),
		}
	default:
		return []hints.Step{
			hints.Text("These are all the rows. Ask a follow-up question to drill into a row, or summarise them for the user."),
		}
	}
}
