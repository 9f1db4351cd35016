package validate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/validate"
)

// frontsArgs is the struct whose schema and validation failure every SDK
// front must render identically: the mcp-go front's validate tests and the
// gosdk module's AddTool tests declare the same struct and compare what
// their clients receive with the golden files in testdata/fronts, which
// this test holds to the core.
type frontsArgs struct {
	Query    string   `json:"query" jsonschema:"What to search for" validate:"required,min=3,max=300"`
	Category string   `json:"category,omitempty" validate:"omitempty,oneof=AI/ML Data Security"`
	Limit    int      `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
	Tags     []string `json:"tags,omitempty" validate:"omitempty,max=5,dive,min=2"`
}

// frontsInvalid are the arguments of the golden validation failure.
const frontsInvalid = `{"query":"ab","category":"ai/ml","limit":99,"colour":"red"}`

var update = flag.Bool("update", false, "rewrite the golden files in testdata/fronts")

func TestFrontsGolden(t *testing.T) {
	t.Parallel()
	_, err := validate.NewBinder[frontsArgs]().Bind(context.Background(), "search", json.RawMessage(frontsInvalid), nil)
	env := envelope.NewRenderer().Error(context.Background(), envelope.Call{Tool: "search", Args: json.RawMessage(frontsInvalid)}, err)
	for name, got := range map[string][]byte{
		"search.schema.json":   validate.Schema[frontsArgs](),
		"search.envelope.json": env.Marshal(),
	} {
		path := "testdata/fronts/" + name
		if *update {
			if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(bytes.TrimSpace(want), got) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}
