package validate

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/internal/fields"
)

// Map keys in paths: identifiers plain, anything else quoted, long ones
// cut.
func TestWriteKey(t *testing.T) {
	t.Parallel()
	k64, k65 := strings.Repeat("k", 64), strings.Repeat("k", 65)
	for key, want := range map[string]string{
		"a": "x.a", "_": "x._", "z": "x.z", "A": "x.A", "Z": "x.Z", "a0": "x.a0", "a9": "x.a9", "a-b": "x.a-b", "a_b": "x.a_b",
		k64: "x." + k64, k65: `x["` + k64[:64-len("…")] + `…"]`,
		"": `x[""]`, "0a": `x["0a"]`, "-a": `x["-a"]`, "a`": "x[\"a`\"]", "a{": `x["a{"]`, "a@": `x["a@"]`, "a[": `x["a["]`,
		"a/": `x["a/"]`, "a:": `x["a:"]`, "a b": `x["a b"]`, "a.b": `x["a.b"]`, "é": `x["é"]`, "9": `x["9"]`,
	} {
		var b strings.Builder
		b.WriteString("x")
		fields.WriteKey(&b, key)
		if b.String() != want {
			t.Errorf("WriteKey(%q) = %s, want %s", key, b.String(), want)
		}
	}
	var b strings.Builder
	fields.WriteKey(&b, "top")
	if b.String() != "top" {
		t.Errorf("a first key has no dot: %s", b.String())
	}
}

// resolve maps validator/v10 namespaces to JSON paths, whatever the
// namespace holds.
func TestResolve(t *testing.T) {
	t.Parallel()
	type inner struct {
		Name string `json:"name"`
	}
	type args struct {
		Items []inner            `json:"items"`
		ByKey map[string]inner   `json:"by_key"`
		Grid  [][]int            `json:"grid"`
		Deep  map[string][]inner `json:"deep"`
	}
	root := buildType(reflect.TypeFor[args](), map[reflect.Type]bool{})
	for ns, want := range map[string]string{
		"args":                      "",
		"args.Items[2].Name":        "items[2].name",
		"args.ByKey[a.b[c]].Name":   `by_key["a.b[c]"].name`,
		"args.ByKey[plain].Name":    "by_key.plain.name",
		"args.Grid[1][2]":           "grid[1][2]",
		"args.Deep[k][0].Name":      "deep.k[0].name",
		"args.ByKey[unclosed":       "by_key.unclose",
		"args.Items[3":              "items",
		"args.Missing.Name":         "",
		"args.Items[0].Missing":     "items[0]",
		"args.Grid[1][2][3]":        `grid[1][2]["3"]`,
		"args.Items[0].Name.Deeper": "items[0].name",
	} {
		if got := resolve(root, ns).path; got != want {
			t.Errorf("resolve(%q) = %q, want %q", ns, got, want)
		}
	}
	// With the arguments, whether the member was sent.
	doc := map[string]any{"items": []any{map[string]any{"name": "x"}, map[string]any{}}}
	for ns, absent := range map[string]bool{
		"args.Items[0].Name": false, "args.Items[1].Name": true, "args.Items[2].Name": true,
		"args.Items[-1].Name": true, "args.Items[x].Name": true, "args.ByKey[a].Name": true,
	} {
		if r := resolveIn(root, ns, doc); r.absent != absent {
			t.Errorf("resolveIn(%q).absent = %v, want %v", ns, r.absent, absent)
		}
	}
	if r := resolveIn(root, "args.Items[0].Name", nil); r.absent || r.first == nil || r.first.jsonName != "items" || r.field.jsonName != "name" || r.typ.kind != kString {
		t.Errorf("resolved %+v", r)
	}
}
