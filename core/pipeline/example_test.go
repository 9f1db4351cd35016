package pipeline_test

import (
	"fmt"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/pipeline"
)

// A consumer describes what its handler answered, and the pipeline says
// what becomes of it; an error result's shape comes from one builder.
func Example() {
	o := pipeline.Decide(pipeline.Answer{IsError: true})
	p := o.Policy()
	fmt.Println(o, p.Envelope, p.Log)

	layers := pipeline.Layers[string]{Limits: []string{"rate"}, Declared: []string{"declared"}, Repeats: []string{"repeats"}}
	fmt.Println(layers.Ordered())

	env := &envelope.Envelope{ErrorType: envelope.NotFound, Tool: "shop_get", Message: "no product P-1"}
	s := pipeline.BuildError(pipeline.ErrorInput{Envelope: env, Renderer: envelope.NewRenderer(), DeclaresOutput: true})
	fmt.Println(s.Structured == nil, s.Meta == nil)
	// Output:
	// error_result true tool_error
	// [repeats rate declared]
	// true true
}
