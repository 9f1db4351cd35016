package declared

import (
	"reflect"
	"testing"
)

// Internal, because no call can reach it: the instance locations that
// replaceAt and locate follow come from the JSON Schema library's errors
// for the very document they walk, so every array index in them is in
// range. The bounds are checked anyway, so that a location the library
// got wrong is a value not found, never an index out of range (a panic
// in the middle of a tool call).
func TestLocationsOutsideTheDocumentAreNotFound(t *testing.T) {
	t.Parallel()
	doc := map[string]any{"ids": []any{"5", "6"}}
	for _, loc := range [][]string{
		{"ids", "2"},  // one past the end
		{"ids", "3"},  // further
		{"ids", "-1"}, // before the start
		{"ids", "x"},  // no index
		{"none"},      // no member
	} {
		called := false
		got, changed := replaceAt(doc, loc, func(v any) (any, bool) { called = true; return v, true })
		if changed || called || !reflect.DeepEqual(got, doc) {
			t.Errorf("replaceAt(%q): changed %v, called %v, %v", loc, changed, called, got)
		}
	}
	r := describer{doc: doc}
	for _, c := range []struct {
		loc  []string
		path string
	}{
		{[]string{"ids", "2"}, "ids[2]"},
		{[]string{"ids", "-1"}, "ids[-1]"},
	} {
		if path, v, _ := r.locate(c.loc); path != c.path || v != nil {
			t.Errorf("locate(%q) = %q, %v; want %q and no value", c.loc, path, v, c.path)
		}
	}
	if path, v, _ := r.locate([]string{"ids", "1"}); path != "ids[1]" || v != "6" {
		t.Errorf(`locate(ids, 1) = %q, %v; want "ids[1]", "6"`, path, v)
	}
}
