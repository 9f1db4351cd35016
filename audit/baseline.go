package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mcpguard/mcpguard/core/pin"
	"github.com/mcpguard/mcpguard/core/wire"
)

// Baseline pins a server's tool definitions: the lockfile of package
// [pin], one line per tool, each the canonical definition (RFC 8785) and
// its SHA-256. Write one with [Report.Baseline] and [Baseline.Write]
// (--baseline FILE), check a later run against it with [WithBaseline]
// (--check-baseline FILE); mcpguard-proxy --pin FILE and the fronts' pin
// options enforce the same file at run time.
type Baseline struct {
	lock *pin.Lock
}

// PinnedTool is one tool of a [Baseline].
type PinnedTool = pin.Tool

// Lock returns the baseline as the lock package [pin] enforces.
func (b *Baseline) Lock() *pin.Lock { return b.lock }

// Server is the name of the server the baseline was written from.
func (b *Baseline) Server() string { return b.lock.Server() }

// Tools returns the pinned tools, sorted by name.
func (b *Baseline) Tools() []PinnedTool { return b.lock.Tools() }

// Write writes the baseline in the current format, one line per tool.
func (b *Baseline) Write(w io.Writer) error {
	_, err := b.lock.WriteTo(w)
	return err
}

// newBaseline pins the listed tools, each as the server sent it. It
// refuses a definition with no canonical form and two tools of one name:
// a pin approves one definition per name.
func newBaseline(server string, tools []tool) (*Baseline, error) {
	defs := make([]json.RawMessage, len(tools))
	for i, t := range tools {
		defs[i] = t.sent()
	}
	l, err := pin.NewLock(server, defs)
	if errors.Is(err, pin.ErrDefinition) {
		for _, t := range tools { // name the tool
			if _, _, _, err := pin.Definition(t.sent()); err != nil {
				return nil, fmt.Errorf("audit: baseline: tool %q: %w (nested deeper than %d, a member named twice, or not encodable)", clip(t.name, 64), err, wire.MaxDepth)
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("audit: baseline: %w", err)
	}
	return &Baseline{lock: l}, nil
}

// ReadBaseline reads a baseline written by [Baseline.Write]. It refuses
// a file over [pin.MaxLockBytes], another format, a member named twice
// anywhere, two pins for one tool, and a definition whose digest does not
// match it (edited by hand).
func ReadBaseline(r io.Reader) (*Baseline, error) {
	l, err := pin.ReadLock(r)
	if err != nil {
		return nil, err
	}
	return &Baseline{lock: l}, nil
}

// sent is the tool's definition as the server sent it, when the listing
// kept it, else as mcp-go encodes it.
func (t tool) sent() []byte {
	if t.raw != nil {
		return t.raw
	}
	if t.encoded != nil {
		return t.encoded
	}
	b, _ := json.Marshal(t.wire) // not encodable: "null", which pins as no definition
	return b
}

// checkBaseline is rule baseline: added, removed and changed tools.
func (a *auditor) checkBaseline(b *Baseline) {
	seen := map[string]bool{}
	for _, t := range a.tools {
		if seen[t.name] {
			continue
		}
		seen[t.name] = true
		a.item(RuleBaseline, t.name, "")
		old, ok := b.lock.Tool(t.name)
		if !ok {
			a.add(Finding{Rule: RuleBaseline, Check: CheckBaselineAdded, Severity: Error, Tool: t.name,
				Message: "the tool is not in the baseline: nobody has reviewed its definition",
				Fix:     "review the tool, then write the baseline again with --baseline"})
			continue
		}
		now, err := pin.Of(t.sent())
		switch {
		case err != nil:
			a.add(Finding{Rule: RuleBaseline, Check: CheckBaselineChanged, Severity: Error, Tool: t.name,
				Message: fmt.Sprintf("the definition has no canonical form (nested deeper than %d, or a member named twice), so it cannot match the baseline's", wire.MaxDepth),
				Fix:     "serve a definition that is plain JSON; then review it and write the baseline again with --baseline"})
		case now.SHA256 != old.SHA256:
			diff := pin.Diff(old.Definition, now.Definition)
			a.add(Finding{Rule: RuleBaseline, Check: CheckBaselineChanged, Severity: Error, Tool: t.name,
				Message: fmt.Sprintf("the definition changed since the baseline (%s): %s", pin.Parts(diff), "a tool can be rewritten after review"),
				Fix:     "review the change; if it is intended, write the baseline again with --baseline",
				Diff:    diff})
		}
	}
	for _, p := range b.lock.Tools() {
		if !seen[p.Name] {
			a.item(RuleBaseline, p.Name, "")
			a.add(Finding{Rule: RuleBaseline, Check: CheckBaselineRemoved, Severity: Error, Tool: p.Name,
				Message: "the baseline's tool is no longer listed; agents and prompts that use it break",
				Fix:     "if the removal is intended, write the baseline again with --baseline"})
		}
	}
}
