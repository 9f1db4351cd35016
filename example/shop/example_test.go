package shop_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/mcpguard/mcpguard/example/shop"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// A missing table reaches the agent as execution_failed with the
// database's own message and a next step naming the schema tool.
func Example() {
	store, err := shop.Open(context.Background())
	if err != nil {
		panic(err)
	}
	defer store.Close()
	s := shop.NewServer(store, shop.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))

	srv := middlewaretest.FromServer(&testing.T{}, s)
	env := srv.CallTool(shop.ToolQuery, map[string]any{"sql": "SELECT * FROM users"}).Envelope
	fmt.Println(env.ErrorType)
	fmt.Println(env.Message)
	fmt.Println(env.NextSteps[0])
	// Output:
	// execution_failed
	// SQL logic error: no such table: users (1)
	// Call shop_get_schema to check table and column names, then fix the SQL.
}
