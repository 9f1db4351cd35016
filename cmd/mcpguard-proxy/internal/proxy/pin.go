package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/pin"
	"github.com/mcpguard/mcpguard/core/wire"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// This file adapts core/pin to the proxy. Every tool definition a
// tools/list result carries, as the server wrote it, is reviewed by the
// pins when the proxy reads the listing (Guard.learn); a tool held back
// is left out of the listing the client gets (not listed as its pinned
// version: the server would run its new code under the old words) and
// its table entry keeps the verdict, which a call's admission reads: a
// map lookup the call makes anyway, and no digest.

// WithPins holds the upstream's tools to the definitions p's lock
// approved (core/pin): a tool whose definition differs from its pin, or
// that the lock does not name, is left out of tools/list, and a call to it
// is answered with access_denied without reaching the upstream. It panics
// if p is nil.
func WithPins(p *pin.Pins) Option {
	if p == nil {
		panic("proxy: WithPins(nil): no pins to enforce")
	}
	return func(o *options) { o.pins = p }
}

// listedTool is one tool of a tools/list result: what the proxy reads of
// it, and its definition as the server wrote it, which the pins review.
type listedTool struct {
	def          []byte
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// UnmarshalJSON reads the tool and keeps its bytes.
func (l *listedTool) UnmarshalJSON(b []byte) error {
	type fields listedTool // without this method
	if err := json.Unmarshal(b, (*fields)(l)); err != nil {
		return err
	}
	l.def = bytes.Clone(b)
	return nil
}

// held reports whether the pins hold the tool back: left out of the
// listing the client gets.
func (t *tool) held() bool { return t.verdict != pin.Approved }

// review is what the pins say of a listed tool: Approved without pins. A
// definition the pins approve under another name than the proxy (and
// encoding/json) reads in it, which names the tool twice, is held back.
func (g *Guard) review(l *listedTool) pin.Verdict {
	if g.o.pins == nil {
		return pin.Approved
	}
	name, v := g.o.pins.Review(context.Background(), l.def)
	if v == pin.Approved && name != l.Name {
		safe.Log(context.Background(), g.o.logger, slog.LevelWarn, "mcpguard-proxy: a listed tool is named twice: it is left out of tools/list and its calls are refused",
			slog.String(logkey.Tool, safe.Value(l.Name)), slog.String("pinned_as", safe.Value(name)))
		return pin.Unreadable
	}
	return v
}

// shown is the tools/list result the client is sent: result itself
// without pins or when every tool is approved and result names its tools
// once; else the approved tools, as the server wrote them, and result's
// other members (a nextCursor, a _meta) as it wrote them.
func (g *Guard) shown(result []byte, tools []listedTool, entries []*tool) []byte {
	if g.o.pins == nil {
		return result
	}
	held := 0
	for _, e := range entries {
		if e.held() {
			held++
		}
	}
	if held == 0 && toolsOnce(result) {
		return result
	}
	b := append(make([]byte, 0, len(result)), `{"tools":[`...)
	n := 0
	for i, e := range entries {
		if !e.held() {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, tools[i].def...)
			n++
		}
	}
	b = append(b, ']')
	_ = rpc.Walk(result, false, func(name []byte, v rpc.Span, _ int) error {
		if !wire.FoldsAs(name, []byte("tools")) {
			q, _ := json.Marshal(string(name))
			b = append(append(append(append(b, ','), q...), ':'), v...)
		}
		return nil
	})
	return append(b, '}')
}

// toolsOnce reports whether a tools/list result has one member that
// encoding/json reads as its tools, written "tools": no reader can read
// other tools in it than the proxy did.
func toolsOnce(result []byte) bool {
	n, exact := 0, false
	_ = rpc.Walk(result, false, func(name []byte, _ rpc.Span, _ int) error {
		if wire.FoldsAs(name, []byte("tools")) {
			n++
			exact = string(name) == "tools"
		}
		return nil
	})
	return n == 1 && exact
}

// unreadListing is what the client is sent for a tools/list result the
// proxy cannot read: result itself without pins; with pins, no tools,
// since none could be reviewed.
func (g *Guard) unreadListing(result []byte) []byte {
	if g.o.pins == nil {
		return result
	}
	safe.Log(context.Background(), g.o.logger, slog.LevelWarn, "mcpguard-proxy: a tools/list result is not one the proxy reads: the client is sent no tools",
		slog.Int(logkey.Bytes, len(result)))
	return []byte(`{"tools":[]}`)
}

// listAnswer is the response the client is sent for its tools/list,
// under its id, when shown (learn's) is not the upstream's result, nil
// when the upstream's response passes.
func (g *Guard) listAnswer(id, result, shown []byte) []byte {
	if same(shown, result) {
		return nil
	}
	return respond(id, shown)
}

// pinned refuses a call of a tool the pins hold back, or that the proxy
// has not seen listed and so cannot check (a server that did not answer
// the proxy's tools/list in time, or listed it past the bounds of the
// proxy's listing: listing.go),
// nil otherwise. The tool is looked up again, not taken
// as the call was read: notifications/tools/list_changed may have come in
// between, and the call is checked against the tools as they are at its
// admission (a call admitted before the proxy read the notification runs
// under the verdict before it). An approved tool costs a map lookup.
func (g *Guard) pinned(_ context.Context, c *call) error {
	c.t = g.tableOf(c).get(c.tool)
	switch t := c.t; {
	case t == nil:
		return unchecked(c.tool)
	case t.held():
		return pin.Refusal(t.name, t.verdict)
	}
	return nil
}

// unchecked is the refusal of a call of a tool the proxy has not seen
// listed: an agent that lists the tools (through the proxy, which reviews
// them) and calls again gets a checked answer.
func unchecked(name string) error {
	err := envelope.New(envelope.AccessDenied, fmt.Sprintf("Tool %q is held back: the server has not listed it to the proxy, so its definition cannot be checked against the approved ones.", safe.Value(name)))
	return envelope.ReplaceNextSteps(err,
		"Call tools/list, then call this tool again if the listing names it.",
		"If the listing does not name it, do not call it: use a listed tool.")
}
