package validate

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	core "github.com/mcpguard/mcpguard/core/validate"
)

// CheckTool reports where tool's declared input schema disagrees with T,
// the arguments type [Args] or [Handler] validates the tool's calls with:
// a member T requires that the schema does not require (or does not
// list), a member the schema lists that T lacks (Args refuses it as
// unknown), a JSON type T refuses; in nested objects and array items too.
// An agent that follows tools/list is then refused, and the envelope's
// step "Re-read this tool's inputSchema" sends it in a loop. It returns
// nil when they agree, as they do for a tool built with [InputSchema] for
// T. Call it in a test, or at startup:
//
//	if err := validate.CheckTool[SearchArgs](tool); err != nil {
//		log.Fatal(err)
//	}
//
// Without it, Args logs the same disagreement once per tool, as a warning,
// at the tool's first call.
func CheckTool[T any](tool mcp.Tool, opts ...Option) error {
	declared, err := declaredSchema(tool)
	if err != nil {
		return fmt.Errorf("validate: CheckTool[%s]: tool %q: %w", reflect.TypeFor[T](), tool.Name, err)
	}
	if err := core.NewBinder[T](opts...).Mismatch(declared); err != nil {
		return fmt.Errorf("validate: CheckTool[%s]: tool %q: %w", reflect.TypeFor[T](), tool.Name, err)
	}
	return nil
}

// declaredSchema returns the input schema tools/list sends for tool.
func declaredSchema(tool mcp.Tool) (json.RawMessage, error) {
	b, err := json.Marshal(tool)
	if err != nil {
		return nil, err
	}
	var wire struct {
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(b, &wire); err != nil {
		return nil, err
	}
	return wire.InputSchema, nil
}

// declaredCheck makes Args compare each tool's declared schema with T
// once, at the tool's first call, when it can find the tool on the server
// serving the call.
type declaredCheck struct {
	// first is the first tool checked: for the usual Args of one tool,
	// every later call is one comparison.
	first atomic.Pointer[string]
	seen  sync.Map // tool name -> struct{}
}

// checkDeclared compares the declared schema of the called tool with b's
// T, the first time the tool is called, and logs a disagreement.
func checkDeclared[T any](ctx context.Context, c *declaredCheck, b *core.Binder[T], tool string) {
	if p := c.first.Load(); p != nil && *p == tool {
		return
	}
	if _, done := c.seen.LoadOrStore(tool, struct{}{}); done {
		return
	}
	c.first.CompareAndSwap(nil, &tool)
	t, ok := toolOf(ctx, tool)
	if !ok {
		return
	}
	if declared, err := declaredSchema(t); err == nil {
		b.WarnMismatch(ctx, tool, declared)
	}
}

// toolOf finds the named tool on the server serving ctx: the calling
// session's own tools first, as mcp-go looks them up, then the server's.
func toolOf(ctx context.Context, name string) (mcp.Tool, bool) {
	if st, ok := server.ClientSessionFromContext(ctx).(server.SessionWithTools); ok {
		if t, ok := st.GetSessionTools()[name]; ok {
			return t.Tool, true
		}
	}
	if s := server.ServerFromContext(ctx); s != nil {
		if t := s.GetTool(name); t != nil {
			return t.Tool, true
		}
	}
	return mcp.Tool{}, false
}
