package chain_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpguard/mcpguard/core/chain"
	"github.com/mcpguard/mcpguard/core/envelope"
)

// A consumer builds one chain from its adapter (here jsonAdapter, a
// consumer of plain JSON, in adapter_test.go) and serves every call
// through it: the handler's Go error reaches the client as an envelope.
func Example() {
	r := envelope.NewRenderer(envelope.WithLogger(discard))
	var records []record
	ad := jsonAdapter{r: r, tools: map[string]bool{"deploy": true}, records: &records}
	c := chain.New[call, answer](ad, chain.Stages[call]{
		Log:     true,
		Recover: true,
		Redact:  &chain.Redaction{Failures: r.Redactor()},
		Render:  r,
	})
	q := call{Tool: "deploy", Args: json.RawMessage(`{"region":"moon"}`)}
	an := c.Serve(context.Background(), q, chain.HandlerFunc[call, answer](func(context.Context, call) answer {
		return answer{err: envelope.New(envelope.NotFound, "no region named moon")}
	}), nil)

	fmt.Println(c.Stages())
	fmt.Println(an.res.IsError, an.res.ours.ErrorType, an.res.ours.Message)
	fmt.Println(records[0].outcome)
	// Output:
	// [log recover redact render]
	// true not_found no region named moon
	// error_result
}
