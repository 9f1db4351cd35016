package hints_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/mcpguard/mcpguard/core/hints"
)

// CheckOnce checks the rules against the server's tools the first time a
// front hands it a complete list; from then on a step naming a missing
// tool is not sent.
func ExampleRegistry_CheckOnce() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	rule := hints.For("memory_read", hints.OnSuccess[queryReq, *queryRes](
		hints.Call("search_node", "for related entities"), // a typo: the server has search_nodes
		hints.Call("memory_write", "to add an observation"),
	))
	reg := hints.NewRegistry([]hints.Rule[queryReq, *queryRes]{rule}, nil, hints.WithLogger(logger))
	reg.CheckOnce(context.Background(), func() ([]string, bool) {
		return []string{"memory_read", "memory_write", "search_nodes"}, true
	})
	steps, _ := reg.Lookup("memory_read").Success(context.Background(), queryReq{}, &queryRes{})
	fmt.Println(steps)
	// Output:
	// level=WARN msg="mcpguard/hints: a hint names a tool the server does not have; steps naming it are not sent" tool=memory_read error="hints: hints of tool \"memory_read\" name unknown tool \"search_node\""
	// [Call memory_write to add an observation.]
}
