package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
)

// expiring is a context whose deadline passes after its Err has been
// asked n times: a deadline that falls at a chosen point of the audit,
// whatever the machine's speed.
type expiring struct {
	context.Context
	n int
}

func (e *expiring) Err() error {
	if e.n == 0 {
		return context.DeadlineExceeded
	}
	e.n--
	return nil
}

// The deadline holds within a tool: a schema walk looks at it every few
// hundred nodes, and the report says which tool it cut short.
func TestDeadlineHoldsWithinATool(t *testing.T) {
	props := map[string]any{}
	for i := range 5_000 {
		props[fmt.Sprintf("p%d", i)] = map[string]any{"type": "boolean"}
	}
	wide := mcp.NewToolWithRawSchema("wide_tool", "d", mustMarshal(map[string]any{"type": "object", "properties": props}))
	a := newAuditor(newOptions(nil), listing{tools: []mcp.Tool{wide}})
	r := a.static(&expiring{Context: context.Background(), n: 1}) // the check before the first tool passes
	assert.Equal(t, "the deadline passed while the schema of tool 1 of 1 was checked", r.Incomplete)
	assert.Equal(t, deadlineEvery-1, r.Scores.C.Checked, "the walk stopped at the first look at the deadline")
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
