package audittest_test

import (
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/audit"
	"github.com/mcpguard/mcpguard/audit/audittest"
)

// printer is a testing.TB that prints failures, standing in for the *testing.T
// of a real test.
type printer struct{ testing.TB }

func (printer) Helper() {}
func (printer) Errorf(format string, args ...any) {
	fmt.Printf("FAIL "+format+"\n", args...)
}

func ExampleRequire() {
	tools := []mcp.Tool{mcp.NewTool("search", mcp.WithDescription("Search."))}
	r := audittest.Require(printer{}, tools, audit.WithFailOn(audit.Error))
	fmt.Println("failed:", r.Failed())
	// Output:
	// FAIL audit: error A.namespace search name: the server's tools share no namespace prefix, so this name can collide with another loaded server's tool (every server has a "search") and the model has to guess whose it is
	// 	fix: prefix every tool with the server's name, e.g. "myserver_search"
	// failed: true
}
