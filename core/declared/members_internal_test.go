package declared

import (
	"context"
	"testing"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// Members names the members readers would read differently, with no
// schema: a case pair and a repeat, at any depth; clean arguments pass.
func TestMembersWithoutASchema(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		`{"path":"a.txt","PATH":"../x"}`:   "PATH",
		`{"o":{"k":1,"k":2}}`:              "o.k",
		`{"path":"a.txt","p\u0061th":"x"}`: "path",
	} {
		err := Members([]byte(raw))
		env := envelope.NewRenderer().Error(context.Background(), envelope.Call{Tool: "t"}, err)
		if err == nil || env.ErrorType != envelope.ValidationError || len(env.Fields) != 1 || env.Fields[0].Field != want {
			t.Errorf("%s: %v, want one field %s", raw, err, want)
		}
	}
	if err := Members([]byte(`{"path":"a.txt","n":[{"a":1},{"a":2}]}`)); err != nil {
		t.Errorf("clean arguments: %v", err)
	}
}
