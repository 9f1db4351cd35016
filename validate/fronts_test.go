package validate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	core "github.com/mcpguard/mcpguard/core/validate"
	"github.com/mcpguard/mcpguard/validate"
)

// frontsArgs is core/validate's frontsArgs, field for field: the struct
// whose schema and validation failure every SDK front renders identically
// (gosdk's AddTool tests declare it too). The golden files live in
// core/validate/testdata/fronts, which the core's own test holds to
// core/validate.
type frontsArgs struct {
	Query    string   `json:"query" jsonschema:"What to search for" validate:"required,min=3,max=300"`
	Category string   `json:"category,omitempty" validate:"omitempty,oneof=AI/ML Data Security"`
	Limit    int      `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
	Tags     []string `json:"tags,omitempty" validate:"omitempty,max=5,dive,min=2"`
}

func golden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../core/validate/testdata/fronts/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(b)
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	ca, _ := json.Marshal(va)
	cb, _ := json.Marshal(vb)
	return bytes.Equal(ca, cb)
}

// TestInputSchemaIsTheCoresSchema: what an mcp-go client reads in
// tools/list is core/validate's Schema[T], the schema gosdk.AddTool
// advertises for the same struct.
func TestInputSchemaIsTheCoresSchema(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddTool(mcp.NewTool("search", validate.InputSchema[frontsArgs]()),
		validate.Handler(func(context.Context, mcp.CallToolRequest, frontsArgs) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		}))
	out := s.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	raw, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Result struct {
			Tools []struct {
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil || len(resp.Result.Tools) != 1 {
		t.Fatalf("tools/list: %s (%v)", raw, err)
	}
	got := resp.Result.Tools[0].InputSchema
	if !sameJSON(t, got, core.Schema[frontsArgs]()) {
		t.Errorf("wire inputSchema %s\n  is not core's %s", got, core.Schema[frontsArgs]())
	}
	if !sameJSON(t, got, golden(t, "search.schema.json")) {
		t.Errorf("wire inputSchema %s\n  is not the golden %s", got, golden(t, "search.schema.json"))
	}
}

// TestValidationEnvelopeIsTheGolden: the envelope an mcp-go client reads
// for invalid arguments is, byte for byte, the one gosdk.AddTool sends.
func TestValidationEnvelopeIsTheGolden(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddTool(mcp.NewTool("search", validate.InputSchema[frontsArgs]()),
		validate.Handler(func(context.Context, mcp.CallToolRequest, frontsArgs) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		}))
	r := callRaw(t, s, "search", `{"query":"ab","category":"ai/ml","limit":99,"colour":"red"}`)
	mustInvalid(t, r)
	if want := golden(t, "search.envelope.json"); r.text != string(want) {
		t.Errorf("envelope\n got %s\nwant %s", r.text, want)
	}
}

// The shell's names are the core's values: one Validator by default, one
// output schema.
func TestNamesAreTheCores(t *testing.T) {
	t.Parallel()
	if validate.Default() != core.Default() {
		t.Error("validate.Default() is not core/validate's default Validator")
	}
	if got, want := validate.OutputSchemaOf[frontsArgs](), core.OutputSchemaOf[frontsArgs](); !bytes.Equal(got, want) {
		t.Errorf("OutputSchemaOf %s\n  is not core's %s", got, want)
	}
}
