package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
)

// This file reads the tools the guard learns from the upstream's
// tools/list results, and what it reads of a call's tool: its output
// schema, its compiled input schema, whether an error means the tool is
// unknown.

// learn reads a tools/list result passing through, asked for in the
// generation gen of the table t (nil: an answer no table learns from,
// one replayed on another stream): which tools exist, which declare an
// output schema and, with pins, which the pins hold back. It returns the
// result the client is sent: result itself, or without the tools held
// back (pin.go).
func (g *Guard) learn(t *toolTable, gen uint64, result []byte) []byte {
	shown, _, _ := g.learnPage(t, gen, result)
	return shown
}

// learnPage is learn, which also returns the result's nextCursor ("" on
// the last page, or a result the proxy cannot read) and whether it is
// stale: t forgot its tools since gen (they changed), and did not learn it.
func (g *Guard) learnPage(t *toolTable, gen uint64, result []byte) (shown []byte, next string, stale bool) {
	if t == nil && g.o.pins == nil {
		return result, "", false
	}
	var r struct {
		Tools      []listedTool `json:"tools"`
		NextCursor *string      `json:"nextCursor"`
	}
	if json.Unmarshal(result, &r) != nil {
		return g.unreadListing(result), "", false
	}
	names := make([]string, 0, len(r.Tools))
	entries := make([]*tool, 0, len(r.Tools))
	for i := range r.Tools {
		l := &r.Tools[i]
		entry := &tool{name: l.Name, output: len(l.OutputSchema) > 0 && string(l.OutputSchema) != "null", verdict: g.review(l)}
		if len(l.InputSchema) > 0 && string(l.InputSchema) != "null" && t != nil {
			entry.declared = g.compiled(t, l.Name, l.InputSchema)
		}
		entries = append(entries, entry)
		names = append(names, l.Name)
	}
	shown = g.shown(result, r.Tools, entries)
	if r.NextCursor != nil {
		next = *r.NextCursor
	}
	// A result without tools lists nothing: complete only with a list.
	if t == nil {
		return shown, next, false
	}
	if !t.add(gen, entries, r.Tools != nil && next == "") {
		return shown, next, true // the server's tools changed since it was asked
	}
	g.lastListed.Store(t)
	g.mu.Lock()
	first := !g.known
	g.known = true
	g.mu.Unlock()
	if first {
		g.checkHints(names)
	}
	return shown, next, false
}

// compiled is the check of the tool name's input schema: the one t, or
// the table last listed, holds for the same schema (compiled once, until
// the schema changes), else a new one.
func (g *Guard) compiled(t *toolTable, name string, schema []byte) *declared {
	for _, from := range []*toolTable{t, g.lastListed.Load()} {
		if from == nil {
			continue
		}
		if old := from.get(name); old != nil && old.declared != nil && bytes.Equal(old.declared.schema, schema) {
			return old.declared
		}
	}
	return &declared{schema: schema}
}

// declaresOutput reports whether the tool c calls was listed with an
// output schema.
func (g *Guard) declaresOutput(c *call) bool {
	t := g.toolOf(c)
	return t != nil && t.output
}

// serverMessage is what the client is sent for msg, a request or
// notification of the server's (of method) whose listed tools are t: the
// tools are forgotten when the server says they changed, so that the next
// call is checked against them as listed again, and a task's status text
// is made safe (tasks.go).
func (g *Guard) serverMessage(t *toolTable, method string, msg []byte) []byte {
	if method == "notifications/tools/list_changed" && t != nil {
		t.forget()
	}
	return g.relayedTask(method, msg)
}

// isUnknownTool reports whether a JSON-RPC error answers a call of a tool
// the server does not have: that error stays a protocol error, as the MCP
// specification asks.
func (g *Guard) isUnknownTool(c *call, code int, msg string) bool {
	if c.taskResult {
		return false // the tool was called: this is the task's failure
	}
	if code != -32602 && code != -32601 {
		return false
	}
	if g.tableOf(c).learned() && !g.listed(c) {
		return true
	}
	m := strings.ToLower(msg)
	return strings.Contains(m, "unknown tool") || strings.Contains(m, "tool not found") ||
		(strings.Contains(m, "not found") && strings.Contains(m, strings.ToLower(c.tool)))
}
