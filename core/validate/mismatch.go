package validate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// maxMismatchDepth bounds how deep a schema comparison descends, so that a
// declared schema nested without end costs a bounded walk.
const maxMismatchDepth = 32

// SchemaMismatch reports where a tool's declared input schema disagrees
// with derived, the schema derived from its arguments type ([Schema]):
// where an agent that follows the declared schema, as it reads it in
// tools/list, is refused by the binding, which is what makes the envelope
// contradict tools/list and the step "Re-read this tool's inputSchema"
// send the agent in a loop. It reports, at every level of nested objects
// and array items:
//
//   - a member the type requires that the declared schema does not
//     require (or does not list at all): the agent may leave it out;
//   - a member the declared schema lists that the type does not have: the
//     binding refuses it as an unknown member;
//   - a member whose declared JSON type admits values the type's does not
//     (a "number" for an int, a "string" for a bool).
//
// A member the type has and the declared schema does not list, if the
// type does not require it, is no disagreement: the agent only never
// sends it. It returns nil when the schemas agree, or an error listing
// every disagreement by JSON path; an error too when declared is not JSON.
func SchemaMismatch(declared, derived []byte) error {
	var d, g map[string]any
	if err := json.Unmarshal(declared, &d); err != nil {
		return fmt.Errorf("the declared input schema is not a JSON object: %w", err)
	}
	if err := json.Unmarshal(derived, &g); err != nil {
		return fmt.Errorf("the derived input schema is not a JSON object: %w", err)
	}
	var out []string
	compareSchemas(d, g, "", 0, &out)
	if len(out) == 0 {
		return nil
	}
	return errors.New("the declared input schema disagrees with the arguments type: " + strings.Join(out, "; "))
}

// compareSchemas appends the disagreements between the declared schema d
// and the derived schema g at path.
func compareSchemas(d, g map[string]any, path string, depth int, out *[]string) {
	if depth > maxMismatchDepth {
		return
	}
	if !typesAgree(d["type"], g["type"]) {
		*out = append(*out, fmt.Sprintf("%s is declared %s where the type takes %s", where(path), typeText(d["type"]), typeText(g["type"])))
		return
	}
	if di, gi := object(d["items"]), object(g["items"]); di != nil && gi != nil {
		compareSchemas(di, gi, path+"[]", depth+1, out)
	}
	gp := object(g["properties"])
	if gp == nil {
		return
	}
	dp := object(d["properties"])
	dreq := stringSet(d["required"])
	for _, name := range stringList(g["required"]) {
		switch _, listed := dp[name]; {
		case !listed:
			*out = append(*out, fmt.Sprintf("%s is required by the type but not declared", join(path, name)))
		case !dreq[name]:
			*out = append(*out, fmt.Sprintf("%s is required by the type but declared optional", join(path, name)))
		}
	}
	for _, name := range sortedKeys(dp) {
		gs, ok := gp[name]
		if !ok {
			*out = append(*out, fmt.Sprintf("%s is declared but the type has no such member, so it is refused", join(path, name)))
			continue
		}
		if ds, gs := object(dp[name]), object(gs); ds != nil && gs != nil {
			compareSchemas(ds, gs, join(path, name), depth+1, out)
		}
	}
}

func where(path string) string {
	if path == "" {
		return "the arguments"
	}
	return path
}

// typesAgree reports whether every JSON type the declared schema admits
// is one the derived schema takes; a schema without "type" admits what
// the other says. "null" is not compared: the binding takes null for a
// pointer, which the derived schema does not say, and schemas inferred
// from Go types (go-sdk's jsonschema.For) declare it for every pointer
// and slice.
func typesAgree(declared, derived any) bool {
	d, g := typeList(declared), typeList(derived)
	d = slices.DeleteFunc(d, func(t string) bool { return t == "null" })
	if len(d) == 0 || len(g) == 0 {
		return true
	}
	for _, t := range d {
		if !slices.Contains(g, t) && (t != "integer" || !slices.Contains(g, "number")) {
			return false
		}
	}
	return true
}

func typeList(v any) []string {
	if s, ok := v.(string); ok {
		return []string{s}
	}
	return stringList(v)
}

func typeText(v any) string {
	ts := typeList(v)
	if len(ts) == 1 {
		return fmt.Sprintf("%q", ts[0])
	}
	b, _ := json.Marshal(ts)
	return string(b)
}

func object(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func stringList(v any) []string {
	items, _ := v.([]any)
	out := make([]string, 0, len(items))
	for _, it := range items {
		if s, ok := it.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func stringSet(v any) map[string]bool {
	set := map[string]bool{}
	for _, s := range stringList(v) {
		set[s] = true
	}
	return set
}

// Mismatch is [SchemaMismatch] of declared against the schema the Binder
// derives from T with its options.
func (b *Binder[T]) Mismatch(declared []byte) error { return SchemaMismatch(declared, b.Schema()) }

// WarnMismatch logs, as a warning to the Binder's logger ([WithLogger]),
// that the declared input schema of tool disagrees with T, when it does:
// for a front that finds the declared schema only once it serves a call.
// It reports whether it logged.
func (b *Binder[T]) WarnMismatch(ctx context.Context, tool string, declared []byte) bool {
	err := b.Mismatch(declared)
	if err == nil {
		return false
	}
	safe.Log(ctx, b.o.logger, slog.LevelWarn,
		"mcpguard/validate: the tool's declared input schema disagrees with the arguments type it is validated with; an agent that follows tools/list will be refused",
		slog.String(logkey.Tool, tool),
		slog.String(logkey.Error, err.Error()))
	return true
}
