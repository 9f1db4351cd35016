package shop

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/validate"
)

// Tool names. Every tool carries the shop_ prefix, so an agent with many
// servers loaded can tell them apart.
const (
	ToolSearch       = "shop_search"
	ToolGetProduct   = "shop_get_product"
	ToolGetSchema    = "shop_get_schema"
	ToolQuery        = "shop_query"
	ToolAuthenticate = "shop_authenticate"
	ToolSalesReport  = "shop_sales_report"
	ToolStoreHours   = "shop_store_hours"
	ToolDebugPanic   = "shop_debug_panic"
)

// The tools' descriptions, shared by the mcp-go and the go-sdk servers:
// what an agent reads in tools/list is the same on both.
const (
	descSearch = "Find products in the shop's catalog by words, category and price. " +
		"Call this first when the user names or describes a product, and to find valid product IDs. " +
		"Returns products with their IDs; call shop_get_product with one of them for the full record."
	descGetProduct = "Get one product's full record: price, stock and description. " +
		"Use it after shop_search, with an ID from its results, when the user asks about a specific product. " +
		"A stock of 0 means sold out; suggest similar products with shop_search."
	descGetSchema = "List the catalog database's tables and their columns. " +
		"Call this before writing SQL for shop_query, and whenever shop_query reports an unknown table or column or returns no rows."
	descQuery = "Run one read-only SQL SELECT against the catalog database (SQLite) and get one page of rows. " +
		"Use it for questions shop_search cannot answer: totals, joins, orders per customer. " +
		"Call shop_get_schema first for table and column names. Writes are refused by the database. " +
		"When has_more is true, call again with page+1."
	descAuthenticate = "Log in to the shop with a username and API key and get a session_token, valid for 30 minutes. " +
		"Call this before shop_sales_report, and again whenever a tool reports authentication_failed."
	descSalesReport = "Get one month's sales totals: orders, units, revenue and the best-selling product. " +
		"Use this when the user asks how a month went. " +
		"Needs a session_token from shop_authenticate for an account with the manager role. " +
		"For other figures, use shop_query."
	descStoreHours = "Get the shop's customer-service hours for a day of the week. " +
		"Use this when the user asks when they can reach the shop or pick up an order. " +
		"Then suggest shop_search if they want to browse products."
	descDebugPanic = "Test-only: panics, to show that a crash in a tool reaches the agent as an internal_error with an incident ID and nothing else."
)

// readOnly says which tools only read. Every tool works on the shop's own
// database alone (a closed world) and none destroys anything, so the
// read-only ones are also idempotent. Both servers declare these hints
// from this one table.
var readOnly = map[string]bool{
	ToolSearch: true, ToolGetProduct: true, ToolGetSchema: true, ToolQuery: true,
	ToolSalesReport: true, ToolStoreHours: true, ToolAuthenticate: false, ToolDebugPanic: false,
}

// mcpGoAnnotations are the tool's behaviour hints for the mcp-go server.
func mcpGoAnnotations(tool string) mcp.ToolOption {
	ro, no := readOnly[tool], false
	return mcp.WithToolAnnotation(mcp.ToolAnnotation{ReadOnlyHint: &ro, DestructiveHint: &no, IdempotentHint: &ro, OpenWorldHint: &no})
}

// SearchArgs are shop_search's arguments. The tags are the single source of
// both the advertised schema and the runtime check. Optional members are
// plain fields with omitempty: left out, null or zero, they mean "not set".
type SearchArgs struct {
	Query         string `json:"query,omitempty" jsonschema:"Words to look for in product names and descriptions; omit to match every product" validate:"omitempty,max=100"`
	Category      string `json:"category,omitempty" jsonschema:"Only products of this category" validate:"omitempty,oneof=books electronics garden kitchen toys"`
	MaxPriceCents int    `json:"max_price_cents,omitempty" jsonschema:"Only products costing at most this many cents" validate:"omitempty,min=1,max=10000000"`
	Limit         int    `json:"limit,omitempty" jsonschema:"How many products to return; default 10" validate:"omitempty,min=1,max=50"`
}

// GetProductArgs are shop_get_product's arguments.
type GetProductArgs struct {
	ID string `json:"id" jsonschema:"Product ID as shop_search returns it, e.g. p-1001" validate:"required,product_id"`
}

// QueryArgs are shop_query's arguments.
type QueryArgs struct {
	SQL      string `json:"sql" jsonschema:"One read-only SQLite SELECT statement over the tables shop_get_schema lists" validate:"required,max=2000"`
	Page     int    `json:"page,omitempty" jsonschema:"Page of results to return, from 1; default 1" validate:"omitempty,min=1,max=1000"`
	PageSize int    `json:"page_size,omitempty" jsonschema:"Rows per page; default 20" validate:"omitempty,min=1,max=100"`
}

// AuthenticateArgs are shop_authenticate's arguments.
type AuthenticateArgs struct {
	Username string `json:"username" jsonschema:"The shop account's username" validate:"required,max=64"`
	APIKey   string `json:"api_key" jsonschema:"The account's API key" validate:"required,max=128"`
}

// SalesReportArgs are shop_sales_report's arguments.
type SalesReportArgs struct {
	SessionToken string `json:"session_token" jsonschema:"The session_token shop_authenticate returned" validate:"required,max=128"`
	Month        string `json:"month" jsonschema:"Month to report on, as YYYY-MM, e.g. 2025-03" validate:"required,month"`
}

// SalesReport is shop_sales_report's structured output. Its tags are
// checked before it is sent, as its outputSchema states them.
type SalesReport struct {
	Month        string `json:"month" jsonschema:"The month reported on, as YYYY-MM" validate:"month"`
	Orders       int    `json:"orders" jsonschema:"Orders placed in the month" validate:"min=0"`
	Units        int    `json:"units" jsonschema:"Units sold" validate:"min=0"`
	RevenueCents int    `json:"revenue_cents" jsonschema:"Revenue in cents" validate:"min=0"`
	TopProduct   string `json:"top_product,omitempty" jsonschema:"ID of the best-selling product, when there were sales" validate:"omitempty,product_id"`
}

// newValidator returns the shop's validator with its named patterns. Each
// server gets its own, so patterns are registered exactly once per server.
func newValidator() *validate.Validator {
	v := validate.New(nil)
	v.RegisterPattern("product_id", `p-[0-9]{4}`)
	v.RegisterPattern("month", `20[0-9]{2}-(0[1-9]|1[0-2])`)
	return v
}

func searchTool(v *validate.Validator) mcp.Tool {
	return mcp.NewTool(ToolSearch,
		mcp.WithDescription(descSearch),
		validate.InputSchema[SearchArgs](validate.WithValidator(v)),
		mcpGoAnnotations(ToolSearch),
	)
}

func (h *handlers) search(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, _ := validate.ArgsFrom[SearchArgs](ctx)
	return jsonResult(h.searchOutput(ctx, args))
}

// The handlers' work, shared by both SDKs' servers: each returns the value
// the tool sends as JSON, or the error the chain classifies.

func (h *handlers) searchOutput(ctx context.Context, args SearchArgs) (any, error) {
	products, err := h.store.Search(ctx, args.Query, args.Category, args.MaxPriceCents, or(args.Limit, 10))
	if err != nil {
		return nil, err
	}
	return map[string]any{"products": products, "count": len(products)}, nil
}

func getProductTool(v *validate.Validator) mcp.Tool {
	return mcp.NewTool(ToolGetProduct,
		mcp.WithDescription(descGetProduct),
		validate.InputSchema[GetProductArgs](validate.WithValidator(v)),
		validate.OutputSchema[*Product](validate.WithValidator(v)),
		mcpGoAnnotations(ToolGetProduct),
	)
}

func (h *handlers) getProduct(ctx context.Context, _ mcp.CallToolRequest, args GetProductArgs) (*Product, error) {
	return h.productOutput(ctx, args)
}

func (h *handlers) productOutput(ctx context.Context, args GetProductArgs) (*Product, error) {
	p, err := h.store.Product(ctx, args.ID)
	if err != nil {
		// sql.ErrNoRows, returned as is: the server maps it to not_found.
		return nil, fmt.Errorf("product %s: %w", args.ID, err)
	}
	return p, nil
}

func getSchemaTool() mcp.Tool {
	return mcp.NewTool(ToolGetSchema,
		mcp.WithDescription(descGetSchema),
		mcp.WithSchemaAdditionalProperties(false),
		mcpGoAnnotations(ToolGetSchema),
	)
}

func (h *handlers) getSchema(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return jsonResult(h.schemaOutput(ctx))
}

func (h *handlers) schemaOutput(ctx context.Context) (any, error) {
	tables, err := h.store.Schema(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"tables": tables, "dialect": "SQLite"}, nil
}

func queryTool(v *validate.Validator) mcp.Tool {
	return mcp.NewTool(ToolQuery,
		mcp.WithDescription(descQuery),
		validate.InputSchema[QueryArgs](validate.WithValidator(v)),
		mcpGoAnnotations(ToolQuery),
	)
}

func (h *handlers) query(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, _ := validate.ArgsFrom[QueryArgs](ctx)
	return jsonResult(h.queryOutput(ctx, args))
}

func (h *handlers) queryOutput(ctx context.Context, args QueryArgs) (any, error) {
	p, err := h.store.Query(ctx, args.SQL, or(args.Page, 1), or(args.PageSize, 20))
	if IsReadOnly(err) {
		return nil, envelope.ReplaceNextSteps(envelope.Wrap(envelope.AccessDenied, err),
			"shop_query only reads: rewrite the statement as a single SELECT. The catalog cannot be changed through this server.")
	}
	if err != nil {
		// A database error, e.g. "no such table: users", returned as is:
		// the server's mapper makes it execution_failed, and redaction
		// keeps its message readable.
		return nil, err
	}
	return p, nil
}

func authenticateTool(v *validate.Validator) mcp.Tool {
	return mcp.NewTool(ToolAuthenticate,
		mcp.WithDescription(descAuthenticate),
		validate.InputSchema[AuthenticateArgs](validate.WithValidator(v)),
		mcpGoAnnotations(ToolAuthenticate),
	)
}

func (h *handlers) authenticate(_ context.Context, _ mcp.CallToolRequest, args AuthenticateArgs) (*mcp.CallToolResult, error) {
	return jsonResult(h.authenticateOutput(args))
}

func (h *handlers) authenticateOutput(args AuthenticateArgs) (any, error) {
	token, expires, err := h.sessions.login(args.Username, args.APIKey)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"session_token": token,
		"expires_at":    expires.UTC().Format(time.RFC3339),
	}, nil
}

func salesReportTool(v *validate.Validator) mcp.Tool {
	return mcp.NewTool(ToolSalesReport,
		mcp.WithDescription(descSalesReport),
		validate.InputSchema[SalesReportArgs](validate.WithValidator(v)),
		validate.OutputSchema[SalesReport](validate.WithValidator(v)),
		mcpGoAnnotations(ToolSalesReport),
	)
}

func (h *handlers) salesReport(ctx context.Context, _ mcp.CallToolRequest, args SalesReportArgs) (SalesReport, error) {
	return h.salesReportOutput(ctx, args)
}

func (h *handlers) salesReportOutput(ctx context.Context, args SalesReportArgs) (SalesReport, error) {
	sess, err := h.sessions.lookup(args.SessionToken)
	if err != nil {
		return SalesReport{}, err
	}
	if sess.role != "manager" {
		return SalesReport{}, ErrNotManager
	}
	r, err := h.store.SalesReport(ctx, args.Month)
	if err != nil {
		return SalesReport{}, err
	}
	return *r, nil
}

// storeHoursTool is the legacy tool: written before the team adopted
// mcpguard, with a schema built by hand from mcp-go's options and a
// handler that builds its own error results. Its handler is left as it
// was; the server-wide chain still turns its ad-hoc error result into an
// envelope, which is the point of gradual adoption. (Its schema was
// tightened by hand when mcpguard-audit pointed at it.)
func storeHoursTool() mcp.Tool {
	return mcp.NewTool(ToolStoreHours,
		mcp.WithDescription(descStoreHours),
		mcp.WithString("day", mcp.Required(), mcp.Description("Day of the week, lower case."),
			mcp.Enum("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")),
		mcp.WithSchemaAdditionalProperties(false),
		mcpGoAnnotations(ToolStoreHours),
	)
}

var hours = map[string]string{
	"monday": "09:00-18:00", "tuesday": "09:00-18:00", "wednesday": "09:00-18:00",
	"thursday": "09:00-20:00", "friday": "09:00-18:00", "saturday": "10:00-14:00", "sunday": "closed",
}

func storeHours(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	text, ok := storeHoursText(req.GetString("day", ""))
	if !ok {
		return mcp.NewToolResultError(text), nil
	}
	return mcp.NewToolResultText(text), nil
}

// storeHoursText is the legacy tool's answer for day, and false with the
// error text it answers for an unknown day.
func storeHoursText(day string) (string, bool) {
	day = strings.ToLower(day)
	h, ok := hours[day]
	if !ok {
		return "unknown day: use monday to sunday", false
	}
	return day + ": " + h, true
}

// debugPanicTool exists only when the server is started with the panic
// tool enabled, for fault-injection tests.
func debugPanicTool() mcp.Tool {
	return mcp.NewTool(ToolDebugPanic,
		mcp.WithDescription(descDebugPanic),
		mcpGoAnnotations(ToolDebugPanic),
	)
}

// PanicSecret is the password the panic tool's panic value holds. Tests
// check that it never reaches a client.
const PanicSecret = "s3cr3t-db-pass"

func debugPanic(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	panic(panicValue())
}

// panicValue is what the panic tool panics with: a secret, a host and a
// source path, none of which may reach a client.
func panicValue() string {
	return fmt.Sprintf("pool exhausted: postgres://shop:%s@db.internal:5432/shop at /srv/shop/pool.go:88", PanicSecret)
}

// or returns v, or def when the optional argument was omitted (zero).
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func jsonResult(v any, err error) (*mcp.CallToolResult, error) {
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(string(b)), nil
}
