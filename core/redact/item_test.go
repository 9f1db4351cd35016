package redact_test

import (
	"fmt"
	"testing"

	"github.com/mcpguard/mcpguard/core/redact"
)

// TestItemRedactsByPosition: the one walk of a content item, as the three
// consumers read it.
func TestItemRedactsByPosition(t *testing.T) {
	r := redact.Default()
	const tok = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	for _, tc := range []struct {
		name string
		in   redact.Item
		want redact.Item
	}{
		{"text, JSON kept valid", redact.Item{Kind: redact.TextItem, Text: `{"password": 7}`},
			redact.Item{Kind: redact.TextItem, Text: `{"password":"[REDACTED]"}`}},
		{"link", redact.Item{Kind: redact.LinkItem, URI: "x://a?token=" + tok, Name: "n", Title: tok, Description: "d"},
			redact.Item{Kind: redact.LinkItem, URI: "x://a?token=[REDACTED]", Name: "n", Title: "[REDACTED]", Description: "d"}},
		{"resource", redact.Item{Kind: redact.ResourceItem, URI: "f://x", Text: "password=hunter2", ResourceMeta: map[string]any{"api_key": "k"}},
			redact.Item{Kind: redact.ResourceItem, URI: "f://x", Text: "password=[REDACTED]", ResourceMeta: map[string]any{"api_key": "[REDACTED]"}}},
		{"binary: only _meta", redact.Item{Kind: redact.BinaryItem, Text: tok, Meta: map[string]any{"secret": "s"}},
			redact.Item{Kind: redact.BinaryItem, Text: tok, Meta: map[string]any{"secret": "[REDACTED]"}}},
		{"other kind as JSON", redact.Item{JSON: `{"type":"tool_result","text":"` + tok + `"}`},
			redact.Item{JSON: `{"type":"tool_result","text":"[REDACTED]"}`}},
		{"other kind, no object", redact.Item{JSON: `"` + tok + `"`}, redact.Item{JSON: `"[REDACTED]"`}},
		// Not JSON at all, and not once redacted: the item becomes a text
		// item of the placeholder, never broken JSON on the wire.
		{"other kind, not JSON", redact.Item{JSON: `{"type":"x","text":` + tok}, redact.Item{JSON: `{"type":"text","text":"[REDACTED]"}`}},
	} {
		got, changed := r.Item(tc.in)
		if !changed || !equalItems(got, tc.want) {
			t.Errorf("%s: got %+v (changed %v), want %+v", tc.name, got, changed, tc.want)
		}
	}
	clean := redact.Item{Kind: redact.TextItem, Text: "fine", Meta: map[string]any{"n": 1.0}}
	if _, changed := r.Item(clean); changed {
		t.Error("a clean item changed")
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = r.Item(clean) }); n != 0 && !raceEnabled {
		t.Errorf("%v allocations for a clean item", n)
	}
}

func equalItems(a, b redact.Item) bool {
	return a.Kind == b.Kind && a.Text == b.Text && a.URI == b.URI && a.Name == b.Name && a.Title == b.Title &&
		a.Description == b.Description && a.JSON == b.JSON && fmt.Sprint(a.Meta) == fmt.Sprint(b.Meta) && fmt.Sprint(a.ResourceMeta) == fmt.Sprint(b.ResourceMeta)
}
