package validate_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/validate"
)

type countArgs struct {
	Observations []string          `json:"observations,omitempty" validate:"omitempty,min=1"`
	Initial      string            `json:"initial,omitempty" validate:"omitempty,max=1"`
	Labels       map[string]string `json:"labels,omitempty" validate:"omitempty,len=1"`
}

// A bound of one reads as English: before, "observations must have at
// least 1 items".
func TestBoundsOfOneAreSingular(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[countArgs]()
	for args, want := range map[string]string{
		`{"observations":[]}`:                "observations must have at least 1 item",
		`{"initial":"ab"}`:                   `initial must be at most 1 character (got "ab")`,
		`{"labels":{"a":"x","b":"y"}}`:       "labels must have exactly 1 entry",
		`{"observations":["a"],"labels":{}}`: "labels must have exactly 1 entry",
	} {
		_, err := b.Bind(context.Background(), "t", json.RawMessage(args), nil)
		env := envelope.NewRenderer().Error(context.Background(), envelope.Call{Tool: "t"}, err)
		if len(env.Fields) != 1 || env.Fields[0].Message != want {
			t.Errorf("%s: fields %+v, want one saying %q", args, env.Fields, want)
		}
	}
	if got := envelope.MoreFields(1).Message; got != "1 more invalid argument is not listed; fix these first" {
		t.Errorf("MoreFields(1) says %q", got)
	}
}

type misspeltArgs struct {
	Entities []struct {
		Name  string   `json:"name"`
		Kind  string   `json:"kind" validate:"oneof=person place"`
		Notes []string `json:"notes,omitempty"`
	} `json:"entities" validate:"dive"`
	Owner *struct {
		Email string `json:"email"`
	} `json:"owner,omitempty"`
	ByID map[string]struct {
		Label string `json:"label"`
	} `json:"by_id,omitempty"`
}

// A misspelt nested member gets the suggestion a misspelt top-level one
// does, at every depth and through arrays, pointers and maps; so does a
// misspelt nested enum value.
func TestNestedMembersGetSuggestions(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[misspeltArgs]()
	for args, want := range map[string][2]string{
		`{"entites":[]}`: {"entites", "entities"},
		`{"entities":[{"nmae":"a","kind":"person"}]}`:            {"entities[0].nmae", "name"},
		`{"entities":[{"name":"a","kind":"person","ntoes":[]}]}`: {"entities[0].ntoes", "notes"},
		`{"entities":[],"owner":{"emial":"a@b.c"}}`:              {"owner.emial", "email"},
		`{"entities":[],"by_id":{"x":{"lable":"a"}}}`:            {"by_id.x.lable", "label"},
		`{"entities":[{"name":"a","kind":"persn"}]}`:             {"entities[0].kind", "person"},
	} {
		_, err := b.Bind(context.Background(), "t", json.RawMessage(args), nil)
		env := envelope.NewRenderer().Error(context.Background(), envelope.Call{Tool: "t"}, err)
		found := false
		for _, f := range env.Fields {
			if f.Field == want[0] {
				found = true
				if f.Suggestion != want[1] {
					t.Errorf("%s: %s suggests %q, want %q (%s)", args, f.Field, f.Suggestion, want[1], f.Message)
				}
			}
		}
		if !found {
			t.Errorf("%s: no field %s in %+v", args, want[0], env.Fields)
		}
	}
	// A nested member is named as one, not as an argument of the tool.
	_, err := b.Bind(context.Background(), "t", json.RawMessage(`{"entities":[{"nmae":"a","kind":"person"}]}`), nil)
	env := envelope.NewRenderer().Error(context.Background(), envelope.Call{Tool: "t"}, err)
	if want := `entities[0].nmae is not a member of entities[0]; did you mean "name"?`; env.Fields[0].Message != want {
		t.Errorf("nested unknown member: %q, want %q", env.Fields[0].Message, want)
	}
}
