package hints

import (
	"fmt"
	"strings"
)

// Step is one next step: a sentence that tells the agent what to do, and,
// when it was built with [Call], the tool it names. Recording the tool is
// what lets [CheckNames] prove that every tool a hint names exists.
type Step struct {
	text string
	tool string
}

// Text returns a step that names no tool, such as "Ask the user which
// account to use." Prefer [Call] whenever the step is to call a tool.
func Text(s string) Step { return Step{text: strings.TrimSpace(s)} }

// Call returns the step "Call <tool> <why>." and records that it names
// tool. why says what calling it achieves, or how to call it; with args it
// is a format:
//
//	hints.Call("shop_authenticate", "with your API key, then retry")
//	// Call shop_authenticate with your API key, then retry.
//	hints.Call("execute_query", "with page=%d to continue", page+1)
//	// Call execute_query with page=3 to continue.
//
// Call panics on an empty tool name; inside a hint function that panic is
// recovered and the step dropped.
func Call(tool, why string, args ...any) Step {
	tool = strings.TrimSpace(tool)
	if tool == "" {
		panic("hints: Call needs a tool name")
	}
	if len(args) > 0 {
		why = fmt.Sprintf(why, args...)
	}
	why = strings.TrimSpace(why)
	var b strings.Builder
	b.Grow(len("Call ") + len(tool) + len(why) + 2)
	b.WriteString("Call ")
	b.WriteString(tool)
	if why != "" {
		b.WriteByte(' ')
		b.WriteString(why)
	}
	if !strings.HasSuffix(why, ".") && !strings.HasSuffix(why, "!") && !strings.HasSuffix(why, "?") {
		b.WriteByte('.')
	}
	return Step{text: b.String(), tool: tool}
}

// String returns the step's sentence.
func (s Step) String() string { return s.text }

// Tool returns the tool the step names, or "" for a [Text] step.
func (s Step) Tool() string { return s.tool }
