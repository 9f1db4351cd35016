package validate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/validate"
)

// maxFailureBytes is the bound the README states for a validation
// failure of SearchArgs on the wire, whatever the size of the request.
const maxFailureBytes = 24 << 10

type tagArgs struct {
	Query string   `json:"query" validate:"required"`
	Tags  []string `json:"tags,omitempty" validate:"omitempty,dive,min=2"`
}

// Every failure is bounded: an 800 KB array of wrong elements, of
// elements failing a rule, a 1 MiB object of unknown members, deep paths
// of long keys. Each gets at most MaxFieldErrors entries and one more
// counting the rest, in at most maxFailureBytes.
func TestFailuresAreBounded(t *testing.T) {
	t.Parallel()
	s := searchServer(t)
	tags := newServer(t)
	tags.AddTool(mcp.NewTool("tags", validate.InputSchema[tagArgs]()),
		validate.Handler(func(ctx context.Context, req mcp.CallToolRequest, a tagArgs) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		}))
	ones := "[" + strings.Repeat("1,", 400_000) + "1]"
	as := `["` + strings.Repeat(`a","`, 200_000) + `a"]`
	var unknown strings.Builder
	unknown.WriteString(`{"query":"abc"`)
	for i := 0; unknown.Len() < 1<<20-64; i++ {
		fmt.Fprintf(&unknown, `,"k%07d":1`, i)
	}
	unknown.WriteString("}")
	var deep strings.Builder
	deep.WriteString(`{"query":"abc"`)
	for i := range 2001 {
		fmt.Fprintf(&deep, `,"%04d%s":1`, i, strings.Repeat("k", 200))
	}
	deep.WriteString("}")
	for _, c := range []struct {
		name, tool, args string
		more             int
	}{
		{"800 KB array of wrong types", "shop_search", `{"query":"abc","filters":` + ones + `}`, 400_001 - validate.MaxFieldErrors},
		{"800 KB array failing a rule", "tags", `{"query":"abc","tags":` + as + `}`, 200_001 - validate.MaxFieldErrors},
		{"1 MiB of unknown members", "shop_search", unknown.String(), -1},
		{"long keys", "shop_search", deep.String(), 2001 - validate.MaxFieldErrors},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := s
			if c.tool == "tags" {
				srv = tags
			}
			r := callRaw(t, srv, c.tool, c.args)
			env := mustInvalid(t, r)
			if len(r.raw) > maxFailureBytes {
				t.Errorf("a %d-byte request got a %d-byte response, more than %d", len(c.args), len(r.raw), maxFailureBytes)
			}
			if len(env.Fields) != validate.MaxFieldErrors+1 {
				t.Fatalf("%d field errors, want %d and one counting the rest", len(env.Fields), validate.MaxFieldErrors)
			}
			last := env.Fields[len(env.Fields)-1]
			if last.Rule != "more" {
				t.Fatalf("last entry %+v, want rule more", last)
			}
			if n, _ := strconv.Atoi(last.Param); c.more >= 0 && n != c.more || n <= 0 {
				t.Errorf("more = %s, want %d", last.Param, c.more)
			}
			t.Logf("%d-byte request: %d-byte response", len(c.args), len(r.raw))
		})
	}
}

// Numbers are read in linear time, before any big-number arithmetic: a
// million digits are an answer, not a stall, and integers written with
// fractions or exponents are still integers. (Called in process: mcp-go
// itself refuses numbers beyond float64 before any tool layer runs.)
func TestHugeNumbers(t *testing.T) {
	t.Parallel()
	h := validate.Handler(func(ctx context.Context, req mcp.CallToolRequest, a SearchArgs) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	million := strings.Repeat("9", 1<<20-40)
	for args, want := range map[string]string{
		`{"query":"abc","limit":` + million + `}`:                                  "max",
		`{"query":"abc","limit":-` + million + `}`:                                 "min",
		`{"query":"abc","limit":1.` + strings.Repeat("0", 1<<20-40) + `}`:          "",
		`{"query":"abc","limit":1.` + strings.Repeat("0", 1<<19) + `1}`:            "type",
		`{"query":"abc","limit":5` + strings.Repeat("0", 1<<19) + `e-524288}`:      "",
		`{"query":"abc","limit":1e` + strings.Repeat("9", 1<<19) + `}`:             "max",
		`{"query":"abc","limit":0.` + strings.Repeat("0", 1<<19) + `e99999999999}`: "",
		`{"query":"abc","max_price":` + million + `}`:                              "type",
		`{"query":"abc","max_price":0.` + million + `}`:                            "",
	} {
		req := mcp.CallToolRequest{}
		req.Params.Name = "shop_search"
		req.Params.RawArguments = json.RawMessage(args)
		res, err := h(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if want == "" {
			if res.IsError {
				t.Errorf("%.60s…: %v", args, res.Content)
			}
			continue
		}
		env, ok := envelope.FromResult(res)
		if !ok || !res.IsError || len(env.Fields) == 0 {
			t.Fatalf("%.60s…: %v", args, res.Content)
		}
		if env.Fields[0].Rule != want {
			t.Errorf("%.60s…: %+v, want rule %s", args, env.Fields[0], want)
		}
	}
}

// One null for a required member is one field error, not a type error
// and a "required" for the same path.
func TestOneErrorPerPath(t *testing.T) {
	t.Parallel()
	s := searchServer(t)
	for args, want := range map[string][]string{
		`{"query":null}`:                     {"query:type"},
		`{}`:                                 {"query:required"},
		`{"query":null,"filters":[null,{}]}`: {"filters[0]:type", "filters[1].name:required", "query:type"},
		`{"query":"abc","filters":[{"name":null,"op":"eq"}]}`: {"filters[0].name:type"},
	} {
		env := mustInvalid(t, callRaw(t, s, "shop_search", args))
		var got []string
		for _, f := range env.Fields {
			got = append(got, f.Field+":"+f.Rule)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: fields %v, want %v", args, got, want)
		}
	}
}

// A value's preview is redacted whole, then cut: a token straddling the
// old 256-byte cut showed its first characters.
func TestPreviewRedactsBeforeCutting(t *testing.T) {
	t.Parallel()
	s := searchServer(t)
	token := "ghp_" + strings.Repeat("A1b2C3d4e5", 4)[:36]
	value := "password=" + strings.Repeat("x", 230) + " " + token + " " + strings.Repeat("y", 30)
	if len(value) <= 300 || strings.Index(value, token) >= 256 || strings.Index(value, token)+len(token) <= 256 {
		t.Fatal("the token must straddle byte 256 of a value over 300 bytes")
	}
	args, _ := json.Marshal(map[string]string{"query": value})
	r := callRaw(t, s, "shop_search", string(args))
	env := mustInvalid(t, r)
	if f := field(t, env, "query"); f.Rule != "max" || !strings.Contains(f.Message, "(got ") {
		t.Fatalf("want a max error with a preview: %+v", f)
	}
	if strings.Contains(r.raw, "ghp_") {
		t.Errorf("a token prefix reached the wire: %s", r.raw)
	}
}

func TestFailureEnvelopeParses(t *testing.T) {
	t.Parallel()
	env := mustInvalid(t, callRaw(t, searchServer(t), "shop_search", `{"query":"abc","filters":`+"["+strings.Repeat("1,", 100)+"1]}"))
	if env.ErrorType != envelope.ValidationError || !strings.HasPrefix(env.Message, "101 invalid arguments: ") {
		t.Errorf("message %q", env.Message)
	}
}

// Validation previews follow the chain's redaction: what the agent sent
// itself (a path) is no leak and stays readable; with the rule switched
// off through the one option, so is everything else.
func TestPreviewFollowsTheChainsRedaction(t *testing.T) {
	t.Parallel()
	type fileArgs struct {
		Path string `json:"path" validate:"required,max=5"`
	}
	h := validate.Handler(func(_ context.Context, _ mcp.CallToolRequest, a fileArgs) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(a.Path), nil
	})
	tool := mcp.NewTool("files_open", validate.InputSchema[fileArgs]())
	srv := middlewaretest.New(t, tool, h, middleware.Default()...)
	r := srv.Call(map[string]any{"path": "/srv/a.md"}).ExpectError(envelope.ValidationError)
	if f := r.Field("path"); f == nil || !strings.Contains(f.Message, "/srv/a.md") {
		t.Errorf("the path the agent sent is shown back: %+v", r.Envelope.Fields)
	}
	r = srv.Call(map[string]any{"path": "token=ghp_" + strings.Repeat("A1b2C3d4e5", 4)}).ExpectError(envelope.ValidationError)
	r.NoLeak("ghp_")
}
