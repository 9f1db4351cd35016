package declared_test

import (
	"context"
	"fmt"

	"github.com/mcpguard/mcpguard/core/declared"
	"github.com/mcpguard/mcpguard/core/envelope"
)

// A front compiles a tool's declared schema once and checks each call;
// a failure renders as the validation_error Binder.Bind gives.
func ExampleNew() {
	d := declared.New("git_log", []byte(`{"type":"object","properties":{
		"repo_path":{"type":"string"},"max_count":{"type":"integer","minimum":1,"maximum":50}},"required":["repo_path"]}`))
	ctx := context.Background()

	converted, err := d.Check(ctx, []byte(`{"repo_path":"/r","max_count":"5"}`), nil, nil)
	fmt.Println(string(converted), err)

	_, err = d.Check(ctx, []byte(`{"max_count":500}`), nil, nil)
	env := envelope.NewRenderer().Error(ctx, envelope.Call{Tool: "git_log"}, err)
	fmt.Println(env.ErrorType)
	for _, f := range env.Fields {
		fmt.Printf("%s %s: %s\n", f.Field, f.Rule, f.Message)
	}
	// Output:
	// {"max_count":5,"repo_path":"/r"} <nil>
	// validation_error
	// max_count max: max_count must be at most 50 (got 500)
	// repo_path required: repo_path is required
}
