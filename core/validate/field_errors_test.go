package validate_test

import (
	"testing"

	"github.com/mcpguard/mcpguard/core/validate"
)

type prefixArgs struct {
	Tag  int      `json:"tag"`
	Tags []string `json:"tags" validate:"min=1"`
	Sub  struct {
		N int `json:"n" validate:"min=1"`
	} `json:"tag_sub"`
}

// TestAMemberThatFailedToBindHidesOnlyItsOwnErrors: a member sent with the
// wrong type is reported once, as a type error; the validator's errors for
// a member whose name merely starts with the same letters ("tag", "tags")
// are still reported.
func TestAMemberThatFailedToBindHidesOnlyItsOwnErrors(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[prefixArgs]()
	env := invalid(t, call(t, b, `{"tag":"x","tags":[],"tag_sub":{"n":0}}`))
	if got := rules(env); got != "tag:type tags:min tag_sub.n:min" {
		t.Errorf("field errors %q, want the type error of tag and the validator's of tag_sub.n and tags", got)
	}
}
