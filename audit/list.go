package audit

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpguard/mcpguard/core/pin"
)

// bytesPerToken estimates tokens from bytes of JSON: about four bytes a
// token for English text and JSON punctuation with common tokenizers.
const bytesPerToken = 4

// checkTokens reports a tool list larger than the token budget.
func (a *auditor) checkTokens() {
	total := 0
	for _, t := range a.tools {
		total += t.size
	}
	a.tokens = total / bytesPerToken
	a.item(RuleList, "", "tools")
	if a.tokens > a.o.tokens {
		a.add(Finding{Rule: RuleList, Check: CheckListTokens, Severity: Warning, Path: "tools",
			Message: fmt.Sprintf("the tool definitions are about %d tokens (%d bytes), over the budget of %d; every turn of every conversation pays for them", a.tokens, total, a.o.tokens),
			Fix:     "shorten descriptions, move reference text into resources, or split the server so clients load only the tools a task needs"})
	}
}

// checkNetworkRefs reports every $ref in the input and output schemas that
// points outside the schema: a client has to fetch it (or fails), and
// whoever controls that host can change the schema after review.
func (a *auditor) checkNetworkRefs(t tool) {
	for _, root := range []struct {
		path string
		m    map[string]any
	}{{"inputSchema", t.schema}, {"outputSchema", t.output}} {
		if root.m == nil {
			continue
		}
		w := &a.scratch.refs
		w.segs = append(w.segs[:0], pathSeg{key: root.path, index: -1})
		w.ref = func(ref string) {
			if strings.HasPrefix(ref, "#") {
				return
			}
			path := w.path()
			a.item(RuleSchemas, t.name, path)
			a.add(Finding{Rule: RuleSchemas, Check: CheckNetworkRef, Severity: Error, Tool: t.name, Path: path,
				Message: fmt.Sprintf("the $ref %q points outside the schema; a client must fetch it or fail, and whoever controls it can change the schema after review", clip(ref, 120)),
				Fix:     "inline the referenced schema, or put it under $defs and refer to it as #/$defs/..."})
		}
		w.walk(root.m, 0) // as deep as checkPoisoning's walk, which reports what lies deeper
	}
}

// checkRelist compares a second tools/list with the first: a server that
// changes its definitions between two calls can show a reviewer one tool
// and the model another, and one that reorders them defeats clients'
// prompt caches (the 2026-07-28 specification says the order SHOULD be
// deterministic).
func (a *auditor) checkRelist(ctx context.Context, again listing, err error) {
	if err != nil {
		if ctx.Err() != nil {
			a.incomplete = "the deadline passed while the tools were listed a second time"
			return
		}
		a.item(RuleList, "", "relist")
		a.add(Finding{Rule: RuleList, Check: CheckListChanged, Severity: Error, Path: "tools",
			Message: "a second tools/list failed where the first succeeded: " + snippet(err.Error()),
			Fix:     "answer tools/list the same way every time"})
		return
	}
	a.item(RuleList, "", "relist")
	// A tool sent as the same bytes both times is unchanged; only the
	// others are decoded and pinned.
	first := make(map[string]*tool, len(a.tools))
	firstOrder := make([]string, 0, len(a.tools))
	for i := range a.tools {
		first[a.tools[i].name] = &a.tools[i]
		firstOrder = append(firstOrder, a.tools[i].name)
	}
	changed := false
	seen := make(map[string]bool, len(again.tools))
	secondOrder := make([]string, 0, len(again.tools))
	var differ listing
	for i, t := range again.tools {
		secondOrder = append(secondOrder, t.Name)
		seen[t.Name] = true
		now := sentAt(again, i)
		if old := first[t.Name]; old != nil && now != nil && bytes.Equal(old.sent(), now) {
			continue
		}
		differ.tools = append(differ.tools, t)
		differ.encoded = append(differ.encoded, again.encoded[i])
		differ.raw = append(differ.raw, now)
	}
	for _, t := range decodeTools(differ) {
		oldTool, ok := first[t.name]
		if !ok {
			changed = true
			a.add(Finding{Rule: RuleList, Check: CheckListChanged, Severity: Error, Tool: t.name,
				Message: "the tool appeared in the second tools/list call but not in the first",
				Fix:     "list the same tools on every call; announce real changes with notifications/tools/list_changed"})
			continue
		}
		if diff, same := definitionDiff(oldTool.sent(), t.sent()); !same {
			changed = true
			a.add(Finding{Rule: RuleList, Check: CheckListChanged, Severity: Error, Tool: t.name,
				Message: fmt.Sprintf("the definition differs between two tools/list calls in one run (%s)", pin.Parts(diff)),
				Fix:     "serve the same definition on every call; a definition that changes per call cannot be reviewed",
				Diff:    diff})
		}
	}
	for _, name := range firstOrder {
		if !seen[name] {
			changed = true
			a.add(Finding{Rule: RuleList, Check: CheckListChanged, Severity: Error, Tool: name,
				Message: "the tool was in the first tools/list call but not in the second",
				Fix:     "list the same tools on every call; announce real changes with notifications/tools/list_changed"})
		}
	}
	if !changed && !slices.Equal(firstOrder, secondOrder) {
		a.add(Finding{Rule: RuleList, Check: CheckListOrder, Severity: Warning, Path: "tools",
			Message: "two tools/list calls returned the same tools in different orders; the specification says the order SHOULD be deterministic, and clients' prompt caches miss on every reordering",
			Fix:     "sort the tools (by name, or by a fixed registration order) before listing them"})
	}
}

// sentAt is tool i of a listing as the server sent it, if the listing
// kept that, else its encoding; nil if it has neither.
func sentAt(l listing, i int) []byte {
	if l.raw != nil && l.raw[i] != nil {
		return l.raw[i]
	}
	return l.encoded[i]
}

// definitionDiff compares two definitions as a pin reads them, and lists
// where they differ. Two definitions with no canonical form are the same
// only if their bytes are.
func definitionDiff(old, now []byte) (diff []string, same bool) {
	_, oldDef, oldSum, oldErr := pin.Definition(old)
	_, nowDef, nowSum, nowErr := pin.Definition(now)
	switch {
	case oldErr == nil && nowErr == nil && oldSum == nowSum:
		return nil, true
	case oldErr != nil || nowErr != nil:
		if bytes.Equal(old, now) {
			return nil, true
		}
		return pin.Diff(old, now), false
	}
	return pin.Diff(oldDef, nowDef), false
}
