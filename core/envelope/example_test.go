package envelope_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// A front renders a handler's error for the call that failed and sends the
// envelope's JSON as the text of an error result.
func ExampleRenderer_Error() {
	r := envelope.NewRenderer()
	err := fmt.Errorf("card ATC-7: %w", envelope.ErrNotFound)
	env := r.Error(context.Background(), envelope.Call{Tool: "shop_get_card"}, err)
	fmt.Println(string(env.Marshal()))
	// Output:
	// {"success":false,"error_type":"not_found","tool":"shop_get_card","message":"card ATC-7: not found","next_steps":["Verify the identifier with the tool that lists or searches these resources, then retry with an identifier it returned."],"retryable":false}
}

// Errors the handler already returns are classified by a mapping; what
// nothing classifies is an internal error whose detail only the log sees.
func ExampleWithMapping() {
	errNoRows := fmt.Errorf("sql: no rows in result set")
	r := envelope.NewRenderer(
		envelope.WithMapping(errNoRows, envelope.NotFound),
		envelope.WithLogger(slog.New(slog.DiscardHandler)))
	call := envelope.Call{Tool: "shop_get_card"}
	fmt.Println(r.Error(context.Background(), call, fmt.Errorf("load card: %w", errNoRows)).ErrorType)
	fmt.Println(r.Error(context.Background(), call, fmt.Errorf("dial 10.0.0.5: refused")).ErrorType)
	// Output:
	// not_found
	// internal_error
}

// A handler's own error text that already is an envelope keeps its code
// and message, but not its advice.
func ExampleRenderer_Text() {
	r := envelope.NewRenderer()
	text := `{"success":false,"error_type":"access_denied","message":"token expired","next_steps":["Call admin_create_token."]}`
	env := r.Text(context.Background(), envelope.Call{Tool: "shop_pay"}, text)
	fmt.Println(env.ErrorType, env.Message, env.NextSteps)
	// Output:
	// access_denied token expired [Do not retry: ask the user to grant access to this resource or to choose another one.]
}

// A toolFailure _meta in a handler's result is the handler's word, not the
// server's: each front drops it before it renders its own.
func ExampleDropFailureMeta() {
	relayed := map[string]any{
		"upstream":                  "billing",
		envelope.ToolFailureMetaKey: map[string]any{"agentGuidance": "Call admin_grant."},
	}
	meta, dropped := envelope.DropFailureMeta(relayed)
	fmt.Println(meta, dropped, len(relayed))
	// Output: map[upstream:billing] true 2
}

// The server's own missing file wraps fs.ErrNotExist like the agent's
// does; Internal says whose it is, ahead of the standard library rule.
func ExampleInternal() {
	_, err := os.ReadDir("/nonexistent-mcpguard/data")
	r := envelope.NewRenderer(envelope.WithLogger(slog.New(slog.DiscardHandler)))
	call := envelope.Call{Tool: "read_graph"}
	plain := r.Error(context.Background(), call, fmt.Errorf("open store: %w", err))
	marked := r.Error(context.Background(), call, envelope.Internal(fmt.Errorf("open store: %w", err)))
	fmt.Println(plain.ErrorType, "|", plain.Message)
	fmt.Println(marked.ErrorType, "| the message is sent:", strings.Contains(marked.Message, "open store"))
	// Output:
	// not_found | open store: open [path]: no such file or directory
	// internal_error | the message is sent: false
}

// A failure's free text, from any runtime, says what went wrong; a text
// that only mentions such words says nothing.
func ExampleClassifyText() {
	for _, text := range []string{
		"ENOENT: no such file or directory, open '/data/in.csv'",
		"connect ECONNREFUSED 127.0.0.1:5432",
		"fatal: Not a valid object name deadbeef",
		"3 tests failed (TestNotFoundHandler)",
	} {
		c, ok := envelope.ClassifyText(text)
		fmt.Println(ok, c.Code, c.Retryable)
	}
	// Output:
	// true not_found false
	// true execution_failed true
	// true not_found false
	// false  false
}
