package shop

import (
	"context"
	"crypto/rand"
	"database/sql"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed seed.sql
var seedSQL string

// Store is the shop's catalog: an in-memory SQLite database seeded from
// seed.sql. Every query goes through a read-only connection, so the
// database itself, not a string check, refuses writes.
type Store struct {
	seed *sql.DB // the only read-write handle; keeps the in-memory database alive
	ro   *sql.DB
}

// Open creates and seeds a fresh in-memory catalog. Each Store has its own
// database, so tests can open many in parallel.
func Open(ctx context.Context) (*Store, error) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	name := "/shop-" + hex.EncodeToString(b[:])
	// The memdb VFS shares one in-memory database between connections of
	// this process that name it; it lives as long as one of them is open.
	seed, err := sql.Open("sqlite", "file:"+name+"?vfs=memdb")
	if err != nil {
		return nil, fmt.Errorf("open catalog: %w", err)
	}
	seed.SetMaxOpenConns(1)
	seed.SetConnMaxIdleTime(0)
	seed.SetConnMaxLifetime(0)
	if _, err := seed.ExecContext(ctx, seedSQL); err != nil {
		seed.Close()
		return nil, fmt.Errorf("seed catalog: %w", err)
	}
	// mode=ro opens the database read-only at the pager, which no PRAGMA
	// can undo; query_only(1) is a second lock on the same door.
	ro, err := sql.Open("sqlite", "file:"+name+"?vfs=memdb&mode=ro&_pragma=query_only(1)")
	if err != nil {
		seed.Close()
		return nil, fmt.Errorf("open catalog read-only: %w", err)
	}
	ro.SetMaxOpenConns(8)
	if err := ro.PingContext(ctx); err != nil {
		seed.Close()
		ro.Close()
		return nil, fmt.Errorf("open catalog read-only: %w", err)
	}
	return &Store{seed: seed, ro: ro}, nil
}

// Close releases the database.
func (s *Store) Close() error {
	return errors.Join(s.ro.Close(), s.seed.Close())
}

// conn borrows a read-only connection with ATTACH disabled: an attached
// database (or VACUUM INTO, which attaches one) would be a way to create
// files on the server even from a read-only connection.
func (s *Store) conn(ctx context.Context) (*sql.Conn, error) {
	c, err := s.ro.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := sqlite.Limit(c, sqlite3.SQLITE_LIMIT_ATTACHED, 0); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// maxScan bounds how many rows one query may read, so a cross join cannot
// hold the server.
const maxScan = 10_000

// queryTimeout bounds one query; a runaway recursive CTE is interrupted.
const queryTimeout = 3 * time.Second

// Page is one page of a query's rows.
type Page struct {
	Columns []string         `json:"columns"`
	Rows    []map[string]any `json:"rows"`
	// Total counts every row the query returned, up to the scan limit.
	Total    int  `json:"total_count"`
	Page     int  `json:"page"`
	PageSize int  `json:"page_size"`
	HasMore  bool `json:"has_more"`
	// Truncated reports that the query returned more rows than the server
	// reads; Total is then a lower bound.
	Truncated bool `json:"truncated,omitempty"`
}

// Query runs one read-only SQL statement and returns the rows of page
// (1-based). Errors are the database's own, unclassified.
func (s *Store) Query(ctx context.Context, query string, page, pageSize int) (*Page, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	c, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	rows, err := c.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	p := &Page{Columns: cols, Rows: []map[string]any{}, Page: page, PageSize: pageSize}
	first := (page - 1) * pageSize
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if p.Total >= maxScan {
			p.Truncated = true
			break
		}
		if p.Total >= first && p.Total < first+pageSize {
			if err := rows.Scan(ptrs...); err != nil {
				return nil, err
			}
			row := make(map[string]any, len(cols))
			for i, col := range cols {
				if b, ok := vals[i].([]byte); ok {
					row[col] = string(b)
				} else {
					row[col] = vals[i]
				}
			}
			p.Rows = append(p.Rows, row)
		}
		p.Total++
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	p.HasMore = p.Total > first+len(p.Rows)
	return p, nil
}

// Product is one catalog entry, and shop_get_product's structured output:
// its tags are checked before it is sent, as its outputSchema states them.
type Product struct {
	ID          string `json:"id" jsonschema:"Product ID, e.g. p-1001" validate:"product_id"`
	Name        string `json:"name"`
	Category    string `json:"category" validate:"oneof=books electronics garden kitchen toys"`
	PriceCents  int    `json:"price_cents" jsonschema:"Price in cents" validate:"min=0"`
	Stock       int    `json:"stock" jsonschema:"Units in stock; 0 means sold out" validate:"min=0"`
	Description string `json:"description"`
}

// Product returns one product. A missing ID is sql.ErrNoRows, which the
// server maps to not_found.
func (s *Store) Product(ctx context.Context, id string) (*Product, error) {
	c, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var p Product
	err = c.QueryRowContext(ctx,
		`SELECT id, name, category, price_cents, stock, description FROM products WHERE id = ?`, id).
		Scan(&p.ID, &p.Name, &p.Category, &p.PriceCents, &p.Stock, &p.Description)
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// Search filters products by a text query, a category and a price cap.
func (s *Store) Search(ctx context.Context, text, category string, maxPrice, limit int) ([]Product, error) {
	c, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	q := `SELECT id, name, category, price_cents, stock, description FROM products
	      WHERE (?1 = '' OR name LIKE '%' || ?1 || '%' OR description LIKE '%' || ?1 || '%')
	        AND (?2 = '' OR category = ?2)
	        AND (?3 = 0 OR price_cents <= ?3)
	      ORDER BY id LIMIT ?4`
	rows, err := c.QueryContext(ctx, q, text, category, maxPrice, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Product{}
	for rows.Next() {
		var p Product
		if err := rows.Scan(&p.ID, &p.Name, &p.Category, &p.PriceCents, &p.Stock, &p.Description); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// Table describes one table for the schema tool.
type Table struct {
	Name    string   `json:"name"`
	Columns []Column `json:"columns"`
}

// Column is one column of a table.
type Column struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	PrimaryKey bool   `json:"primary_key,omitempty"`
}

// Schema lists every table and its columns.
func (s *Store) Schema(ctx context.Context) ([]Table, error) {
	c, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	rows, err := c.QueryContext(ctx, `SELECT m.name, p.name, p.type, p.pk
		FROM sqlite_schema AS m JOIN pragma_table_info(m.name) AS p
		WHERE m.type = 'table' ORDER BY m.name, p.cid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Table
	for rows.Next() {
		var table string
		var col Column
		var pk int
		if err := rows.Scan(&table, &col.Name, &col.Type, &pk); err != nil {
			return nil, err
		}
		col.PrimaryKey = pk > 0
		if len(out) == 0 || out[len(out)-1].Name != table {
			out = append(out, Table{Name: table})
		}
		out[len(out)-1].Columns = append(out[len(out)-1].Columns, col)
	}
	return out, rows.Err()
}

// Categories lists the category names, in order.
var Categories = []string{"books", "electronics", "garden", "kitchen", "toys"}

// IsReadOnly reports whether err is the database refusing a write.
func IsReadOnly(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_READONLY
}

// IsSQLError reports whether err comes from SQLite itself: a syntax error,
// a missing table or column, a constraint.
func IsSQLError(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se)
}

// SalesReport totals one month's orders; month is YYYY-MM.
func (s *Store) SalesReport(ctx context.Context, month string) (*SalesReport, error) {
	c, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	r := &SalesReport{Month: month}
	var top sql.NullString
	err = c.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(o.quantity), 0),
		coalesce(sum(o.quantity * p.price_cents), 0),
		(SELECT product_id FROM orders WHERE substr(placed_at, 1, 7) = ?1
		 GROUP BY product_id ORDER BY sum(quantity) DESC, product_id LIMIT 1)
		FROM orders o JOIN products p ON p.id = o.product_id
		WHERE substr(o.placed_at, 1, 7) = ?1`, month).Scan(&r.Orders, &r.Units, &r.RevenueCents, &top)
	if err != nil {
		return nil, err
	}
	r.TopProduct = top.String
	return r, nil
}
