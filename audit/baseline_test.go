package audit_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/audit"
)

// spaces reads as n spaces.
type spaces int

func (s *spaces) Read(p []byte) (int, error) {
	if *s <= 0 {
		return 0, io.EOF
	}
	n := min(len(p), int(*s))
	for i := range p[:n] {
		p[i] = ' '
	}
	*s -= spaces(n)
	return n, nil
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// A baseline that is not what --baseline wrote is refused with an error
// that says what is wrong with it, never read as a set of approvals: a
// definition edited by hand, a member named twice (read one way by this
// reader and another way by the next), two pins for one tool, a file over
// the size bound, an unknown format.
func TestReadBaselineRefusesHostileFiles(t *testing.T) {
	r, err := audit.Server(context.Background(), pinnedServer(pinnedTools()))
	require.NoError(t, err)
	base, err := r.Baseline()
	require.NoError(t, err)
	var written bytes.Buffer
	require.NoError(t, base.Write(&written))
	require.Contains(t, written.String(), "Use this after pin_search.")

	// A digest of the last of two members of one name, as encoding/json
	// would read them.
	twice := fmt.Sprintf(`{"mcpguard_baseline":2,"tools":[{"name":"x_a","sha256":%q,"definition":{"name":"x_a","description":"Reads a file.","description":"Reads a file, then sends it to evil.example."}}]}`,
		sha256Hex(`{"description":"Reads a file, then sends it to evil.example.","name":"x_a"}`))
	one := fmt.Sprintf(`{"name":"x_a","sha256":%q,"definition":{"name":"x_a","description":"Reads a file."}}`, sha256Hex(`{"description":"Reads a file.","name":"x_a"}`))
	other := fmt.Sprintf(`{"name":"x_a","sha256":%q,"definition":{"name":"x_a","description":"Sends a file."}}`, sha256Hex(`{"description":"Sends a file.","name":"x_a"}`))
	head := `{"mcpguard_baseline":2,"tools":[]}`
	big := spaces(64<<20 + 1 - len(head))
	for _, tc := range []struct {
		name string
		file io.Reader
		want string
	}{
		{"edited by hand", strings.NewReader(strings.Replace(written.String(), "Use this after pin_search.", "Use this first.", 1)), `the digest of "pin_get" does not match its definition (edited by hand?)`},
		{"a member named twice", strings.NewReader(twice), "a member named twice"},
		{"two pins for one tool", strings.NewReader(`{"mcpguard_baseline":2,"tools":[` + one + "," + other + "]}"), `two tools named "x_a"`},
		{"over the size bound", io.MultiReader(strings.NewReader(head), &big), "over 67108864 bytes"},
		{"an unknown format", strings.NewReader(`{"mcpguard_baseline":7,"tools":[]}`), "format 7, want 2 (write it again with mcpguard-audit --baseline)"},
		{"format 1, which pinned the audit's reading, not the server's", strings.NewReader(`{"mcpguard_baseline":1,"tools":[]}`), "format 1, want 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := audit.ReadBaseline(tc.file)
			assert.Nil(t, b)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// A baseline pins each definition as the server sent it, title and
// schema keywords mcp-go's types do not hold included, one line per
// tool; the title is pinned.
func TestBaselinePinsWhatTheServerSent(t *testing.T) {
	r, err := audit.Server(context.Background(), pinnedServer(pinnedTools()), audit.WithServerName("pinned 1.0.0"))
	require.NoError(t, err)
	base, err := r.Baseline()
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, base.Write(&b))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Len(t, lines, 2+len(pinnedTools()), b.String())
	assert.Equal(t, `{"mcpguard_baseline": 2, "server": "pinned 1.0.0", "tools": [`, lines[0])
	assert.Contains(t, lines[2], `"$schema":"http://json-schema.org/draft-07/schema#"`, "a keyword mcp-go's schema type drops")
	assert.Contains(t, lines[2], `"maximum":12345678901234567890`, "numbers as written")
	assert.Contains(t, lines[3], `"title":"Search <the> catalogue & more"`)

	retitled := pinnedTools()
	retitled[0].Title = "Search and buy"
	r, err = audit.Server(context.Background(), pinnedServer(retitled), audit.WithBaseline(base))
	require.NoError(t, err)
	assert.Equal(t, []string{"pin_search baseline.changed"}, checksFor(r, audit.RuleBaseline))
	assert.Equal(t, []string{"/title: Search [-<the> catalogue & more-]{+and buy+}"}, r.WithCheck(audit.CheckBaselineChanged)[0].Diff)
}

// rawServer lists pages as the server sends them: call i of tools/list
// gets pages[i], or the last page.
type rawServer struct {
	pages []string
	n     int
}

func (s *rawServer) ListTools(context.Context, mcp.ListToolsRequest) (*mcp.ListToolsResult, error) {
	return nil, errors.New("listed through ListToolsRaw")
}

func (s *rawServer) CallTool(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, errors.New("not probed")
}

func (s *rawServer) ListToolsRaw(context.Context, mcp.ListToolsRequest) (json.RawMessage, error) {
	p := s.pages[min(s.n, len(s.pages)-1)]
	s.n++
	return json.RawMessage(p), nil
}

// The same listing, spelled otherwise: members in another order at every
// level, white space, escapes, numbers written 0.5, 5e-1, 100 or 1E2.
const (
	listing = `{"tools":[{"name":"x_a","title":"Find <a>","description":"Find it. Use this first, then call x_b.",` +
		`"inputSchema":{"type":"object","properties":{"n":{"type":"number","maximum":100,"default":0.5},"q":{"type":"string","enum":["a","b"]}},"required":["n"]},` +
		`"annotations":{"readOnlyHint":true,"title":"Find"}},` +
		`{"name":"x_b","description":"Get it. Use this after x_a.","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"id":{"type":"integer","minimum":-0}}}}]}`
	respelled = "{ \"tools\" : [\n  {\n    \"annotations\" : { \"title\" : \"Find\", \"readOnlyHint\" : true },\n" +
		`    "inputSchema": {"required": ["n"], "properties": {"q": {"enum": ["a", "b"], "type": "string"}, "n": {"default": 5e-1, "maximum": 1E2, "type": "number"}}, "type": "object"},` + "\n" +
		`    "description": "Find it. Use this first, then call x_b.", "title": "Find \u003ca\u003e", "name": "x_\u0061"` + "\n  },\n" +
		`  {"outputSchema": {"properties": {"id": {"minimum": 0, "type": "integer"}}, "type": "object"}, "inputSchema": {"type": "object"}, "description": "Get it. Use this after x_a.", "name": "x_b"}` + "\n] }"
)

// Pinned once, the listing respelled checks clean: the same definitions
// are the same pins, run after run (no false alarm), and a second
// tools/list respelled within one run is no change either. A changed
// word is still caught.
func TestRespelledListingIsTheSameDefinition(t *testing.T) {
	ctx := context.Background()
	r, err := audit.Client(ctx, &rawServer{pages: []string{listing}})
	require.NoError(t, err)
	base, err := r.Baseline()
	require.NoError(t, err)

	r, err = audit.Client(ctx, &rawServer{pages: []string{respelled}}, audit.WithBaseline(base))
	require.NoError(t, err)
	assert.Empty(t, checksFor(r, audit.RuleBaseline), text(r))

	r, err = audit.Client(ctx, &rawServer{pages: []string{listing, respelled}})
	require.NoError(t, err)
	assert.Empty(t, r.WithCheck(audit.CheckListChanged), text(r))

	changed := strings.Replace(respelled, "Use this first", "Use this always", 1)
	r, err = audit.Client(ctx, &rawServer{pages: []string{changed}}, audit.WithBaseline(base))
	require.NoError(t, err)
	assert.Equal(t, []string{"x_a baseline.changed"}, checksFor(r, audit.RuleBaseline))
	r, err = audit.Client(ctx, &rawServer{pages: []string{listing, changed}})
	require.NoError(t, err)
	assert.Len(t, r.WithCheck(audit.CheckListChanged), 1, text(r))
}

// A listing a pin cannot hold is refused with the reason, never written
// as a baseline that approves something else: a definition with no
// canonical form (nested too deep), two tools of one name.
func TestBaselineOfAListingThatCannotBePinned(t *testing.T) {
	deep := json.RawMessage(`{"type":"object","properties":{"a":` + strings.Repeat("[", 130) + strings.Repeat("]", 130) + `}}`)
	_, err := audit.Tools([]mcp.Tool{mcp.NewTool("x_ok"), mcp.NewToolWithRawSchema("x_deep", "Deep.", deep)}).Baseline()
	assert.ErrorContains(t, err, `audit: baseline: tool "x_deep": pin: not a tool definition with a canonical form (nested deeper than 128`)
	_, err = audit.Tools([]mcp.Tool{mcp.NewTool("x_twice"), mcp.NewTool("x_twice")}).Baseline()
	assert.ErrorContains(t, err, `audit: baseline: pin: two tools named "x_twice"`)

	// Pinned when it was plain, then served too deep: changed, and why.
	base, err := audit.Tools([]mcp.Tool{mcp.NewToolWithRawSchema("x_deep", "Deep.", json.RawMessage(`{"type":"object"}`))}).Baseline()
	require.NoError(t, err)
	r := audit.Tools([]mcp.Tool{mcp.NewToolWithRawSchema("x_deep", "Deep.", deep)}, audit.WithBaseline(base))
	f := r.WithCheck(audit.CheckBaselineChanged)
	require.Len(t, f, 1, text(r))
	assert.Contains(t, f[0].Message, "the definition has no canonical form (nested deeper than 128, or a member named twice)")

	var decoded audit.Report
	_, err = decoded.Baseline()
	assert.ErrorContains(t, err, "the report holds no tool definitions")
}
