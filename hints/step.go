package hints

import core "github.com/mcpguard/mcpguard/core/hints"

// Step is one next step: a sentence that tells the agent what to do, and,
// when it was built with [Call], the tool it names. Recording the tool is
// what lets [Check] prove that every tool a hint names exists. Its methods
// String and Tool return the sentence and the tool ("" for a [Text] step).
type Step = core.Step

// Text returns a step that names no tool, such as "Ask the user which
// account to use." Prefer [Call] whenever the step is to call a tool.
func Text(s string) Step { return core.Text(s) }

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
func Call(tool, why string, args ...any) Step { return core.Call(tool, why, args...) }
