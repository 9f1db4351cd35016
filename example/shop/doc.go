// Package shop is the example MCP server: a small shop catalog on an
// embedded SQLite database (modernc.org/sqlite, pure Go), seeded at
// start-up from the seed.sql file it embeds.
//
// # What it shows
//
// mcpguard adopted the way a real codebase adopts it: the recommended chain
// for every tool with s.Use(middleware.Default(...)...), the database's
// errors mapped onto the taxonomy (sql.ErrNoRows to not_found, SQLite
// errors to execution_failed, a refused write to access_denied), per-tool
// next steps with the hints layer (shop_query's three-way pagination hint
// from the seed article), validate.Args on some tools, validate.Handler on
// another, validate.StructuredHandler with validate.OutputSchema where a
// tool returns a typed result, and one legacy tool, shop_store_hours, left
// as it was written.
//
// # Where it sits
//
// cmd/shop-server serves it over stdio or streamable HTTP; cmd/demo calls it
// in process; e2e/ drives the built binary with real clients.
//
// # Why read-only is the database's job
//
// shop_query runs agent-written SQL. A keyword filter misses CTEs, PRAGMAs
// and whatever comes next, so the query connection is opened read-only
// (mode=ro, which no PRAGMA can undo, plus query_only), and ATTACH is
// disabled on it so that neither ATTACH nor VACUUM INTO can create files.
// The tests try the writes a filter would miss.
package shop
