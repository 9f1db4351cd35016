package validate_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpguard/mcpguard/core/validate"
)

// TestBinderChecksItsOwnSchema: Binder.Checks recognizes the binder's
// schema written by another encoder, and nothing else. (core/declared
// knows nothing of binders: which tool's handler is a binder is the
// front's to know, and its Checker checks a binder's schema like any
// other.)
func TestBinderChecksItsOwnSchema(t *testing.T) {
	t.Parallel()
	type claimedArgs struct {
		Query string `json:"query" validate:"required,min=3"`
	}
	b := validate.NewBinder[claimedArgs]()
	if b.Checks([]byte(`{"type":"object","properties":{"query":{"type":"string","minLength":4}}}`)) {
		t.Error("another schema is the binder's")
	}
	var v any
	if err := json.Unmarshal(b.Schema(), &v); err != nil {
		t.Fatal(err)
	}
	again, _ := json.MarshalIndent(v, "", "  ")
	if !b.Checks(again) {
		t.Errorf("the binder's schema, indented, is not its own")
	}
}

// TestBinderChecksCompareTheSchemaItself: a declared schema is the
// binder's when it differs only by an empty "required" (which mcp-go
// writes for every tool), at any depth, and is not when its "required"
// says something else.
func TestBinderChecksCompareTheSchemaItself(t *testing.T) {
	t.Parallel()
	type claimInner struct {
		Note string `json:"note,omitempty"`
	}
	type claimOptional struct {
		Label string      `json:"label,omitempty"`
		Inner *claimInner `json:"inner,omitempty"`
	}
	type claimRequired struct {
		Query string `json:"query_claims_test" validate:"required"`
	}
	opt := validate.NewBinder[claimOptional]()
	req := validate.NewBinder[claimRequired]()

	var v map[string]any
	if err := json.Unmarshal(opt.Schema(), &v); err != nil {
		t.Fatal(err)
	}
	v["required"] = []any{}
	if inner, ok := v["properties"].(map[string]any)["inner"].(map[string]any); ok {
		inner["required"] = []any{}
	} else {
		t.Fatalf("no inner object: %v", v)
	}
	b, _ := json.Marshal(v)
	if !opt.Checks(b) {
		t.Errorf("a claimed schema with empty required lists is checked again: %s", b)
	}

	var r map[string]any
	if err := json.Unmarshal(req.Schema(), &r); err != nil {
		t.Fatal(err)
	}
	delete(r, "required")
	b, _ = json.Marshal(r)
	if req.Checks(b) {
		t.Errorf("a schema that drops the binder's required members counts as the binder's: %s", b)
	}
}
