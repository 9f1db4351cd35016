package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/audit"
	"github.com/mcpguard/mcpguard/audit/audittest"
)

func dFindings(r *audit.Report, tool string) map[string]audit.Finding {
	out := map[string]audit.Finding{}
	for _, f := range r.Findings {
		if f.Rule == audit.RuleErrors && f.Tool == tool {
			out[f.Check] = f
		}
	}
	return out
}

func checks(m map[string]audit.Finding) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// The deliberately bad server is flagged tool by tool.
func TestProbeFlagsBadServer(t *testing.T) {
	var rec calls
	r, err := audit.Server(context.Background(), badServer(&rec), audit.WithProbe())
	require.NoError(t, err)
	require.True(t, r.Probed)

	want := map[string][]string{
		// (nil, err): a JSON-RPC error the model never sees.
		"shop_search": {audit.CheckJSONRPC, audit.CheckJSONRPCCode},
		// A real nil-map panic and a panic with a stack, both turned by
		// server.WithRecovery into JSON-RPC errors carrying the value.
		"shop_get_order":    {audit.CheckJSONRPC, audit.CheckJSONRPCCode, audit.CheckLeak},
		"shop_cancel_order": {audit.CheckJSONRPC, audit.CheckJSONRPCCode, audit.CheckLeak},
		// mcp.NewToolResultError: isError, but prose.
		"shop_add_to_cart": {audit.CheckEnvelope},
		// The article's v1.9.0 shape: JSON, but not the taxonomy, and a path.
		"shop_checkout": {audit.CheckEnvelope, audit.CheckLeak},
		// Ignores its schema and succeeds.
		"shop_list_products": {audit.CheckAccepted},
		// Nothing invalid can be sent: reported, never called.
		"shop_reset": {audit.CheckNotProbeable},
	}
	for tool, ids := range want {
		got := dFindings(r, tool)
		assert.ElementsMatch(t, ids, checks(got), "tool %s:\n%s", tool, text(r))
	}
	assert.Equal(t, audit.Info, dFindings(r, "shop_reset")[audit.CheckNotProbeable].Severity)
	assert.Equal(t, 0, rec.count("shop_reset"), "a tool without an invalid call is never called")
	assert.Contains(t, dFindings(r, "shop_cancel_order")[audit.CheckLeak].Message, "goroutine dump")
	assert.Contains(t, dFindings(r, "shop_get_order")[audit.CheckLeak].Message, "panic value")
	assert.Contains(t, dFindings(r, "shop_checkout")[audit.CheckEnvelope].Message, "JSON without an error_type")

	// The report repeats none of what it flags.
	out := text(r)
	assert.NotContains(t, out, "/home/dev")
	assert.NotContains(t, out, "search.go:42")
	assert.NotContains(t, out, "/srv/shop")

	require.NotNil(t, r.Scores.D)
	assert.Equal(t, audit.Score{Checked: 6, Passed: 0, Percent: 0}, *r.Scores.D)
	assert.True(t, r.Failed())
}

// The same shop behind middleware.Default(), with handlers that report
// invalid arguments as validation errors, passes rule D.
func TestProbeGoodServerPassesD(t *testing.T) {
	var rec calls
	r, err := audit.Server(context.Background(), goodServer(&rec), audit.WithProbe())
	require.NoError(t, err)
	for _, f := range r.Findings {
		if f.Rule == audit.RuleErrors {
			assert.Equal(t, audit.Info, f.Severity, "%s", f)
		}
	}
	require.NotNil(t, r.Scores.D)
	assert.Equal(t, audit.Score{Checked: 3, Passed: 3, Percent: 100}, *r.Scores.D)
	assert.Greater(t, rec.count("shop_search"), 0, "probeable tools are called")
	assert.Equal(t, 0, rec.count("shop_reset"))
}

// A server that answers invalid arguments with internal_error (a handler
// that just returns its error behind Default) is told so, as a warning.
func TestProbeInternalErrorForInvalidArgs(t *testing.T) {
	s := server.NewMCPServer("t", "1")
	s.Use(goodServerChain()...)
	s.AddTool(mcp.NewTool("t_get", mcp.WithString("id", mcp.Required(), mcp.Pattern("^[a-z]{3}$"))),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			id, err := req.RequireString("id")
			if err != nil {
				// An error nothing classifies: mcp-go's own argument
				// errors are validation errors since the envelope knows them.
				return nil, errors.New("lookup failed")
			}
			return mcp.NewToolResultText(id), nil
		})
	r, err := audit.Server(context.Background(), s, audit.WithProbe())
	require.NoError(t, err)
	got := dFindings(r, "t_get")
	require.Contains(t, got, audit.CheckErrorType, text(r))
	assert.Equal(t, audit.Warning, got[audit.CheckErrorType].Severity)
	assert.NotContains(t, got, audit.CheckEnvelope)
}

// Every call the probe sends is rejected by the tool's own schema; the
// probe never sends a valid call.
func TestProbeNeverSendsAValidCall(t *testing.T) {
	var rec calls
	srv := server.NewMCPServer("rec", "1")
	defs := append(loadTools(t, "testdata/v1.9.0.json"), loadTools(t, "testdata/v1.7.0.json")...)
	schemas := map[string]*jsonschema.Schema{}
	for i, tool := range defs {
		tool.Name = tool.Name + "_" + string(rune('a'+i)) // unique names
		tool.Name = strings.ReplaceAll(tool.Name, " ", "_")
		b, err := json.Marshal(tool)
		require.NoError(t, err)
		var wire struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		require.NoError(t, json.Unmarshal(b, &wire))
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(wire.InputSchema))
		require.NoError(t, err)
		c := jsonschema.NewCompiler()
		require.NoError(t, c.AddResource("mem:///s.json", doc))
		if sch, err := c.Compile("mem:///s.json"); err == nil {
			schemas[tool.Name] = sch
		}
		srv.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			rec.record(req)
			return mcp.NewToolResultText("done"), nil
		})
	}
	_, err := audit.Server(context.Background(), srv, audit.WithProbe())
	require.NoError(t, err)
	sent := rec.all()
	require.NotEmpty(t, sent)
	total := 0
	for tool, argsList := range sent {
		sch, ok := schemas[tool]
		require.Truef(t, ok, "%s was called although its schema does not compile", tool)
		for _, args := range argsList {
			total++
			b, _ := json.Marshal(args)
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			require.NoError(t, err)
			assert.Errorf(t, sch.Validate(v), "%s was sent %s, which its schema accepts", tool, b)
		}
	}
	assert.Greater(t, total, 10)
}

func TestProbeSkip(t *testing.T) {
	var rec calls
	r, err := audit.Server(context.Background(), badServer(&rec), audit.WithProbe(), audit.WithSkip("shop_search", "shop_cancel_order"))
	require.NoError(t, err)
	assert.Equal(t, 0, rec.count("shop_search"))
	assert.Equal(t, 0, rec.count("shop_cancel_order"))
	assert.Empty(t, dFindings(r, "shop_search"))
	assert.Greater(t, rec.count("shop_get_order"), 0)
}

// Without WithProbe nothing is called.
func TestNoProbeNoCalls(t *testing.T) {
	var rec calls
	r, err := audit.Server(context.Background(), badServer(&rec))
	require.NoError(t, err)
	assert.False(t, r.Probed)
	assert.Nil(t, r.Scores.D)
	assert.Empty(t, rec.all())
}

// Through a real mcp-go client (in-process transport), the same defects
// are found; JSON-RPC errors arrive as Go errors.
func TestProbeThroughMCPGoClient(t *testing.T) {
	var rec calls
	c, err := client.NewInProcessClient(badServer(&rec))
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, c.Start(ctx))
	defer c.Close()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	_, err = c.Initialize(ctx, init)
	require.NoError(t, err)

	r, err := audit.Client(ctx, c, audit.WithProbe())
	require.NoError(t, err)
	assert.Contains(t, dFindings(r, "shop_search"), audit.CheckJSONRPC, text(r))
	assert.Contains(t, dFindings(r, "shop_add_to_cart"), audit.CheckEnvelope)
	assert.Contains(t, dFindings(r, "shop_checkout"), audit.CheckLeak)
	assert.Contains(t, dFindings(r, "shop_list_products"), audit.CheckAccepted)
}

// fakeCaller lists tools and fails every call with err.
type fakeCaller struct {
	tools []mcp.Tool
	err   error
}

func (f fakeCaller) ListTools(context.Context, mcp.ListToolsRequest) (*mcp.ListToolsResult, error) {
	return &mcp.ListToolsResult{Tools: f.tools}, nil
}

func (f fakeCaller) CallTool(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, f.err
}

func TestProbeNoAnswer(t *testing.T) {
	tl := []mcp.Tool{mcp.NewTool("t_x", mcp.WithString("q", mcp.Required()))}
	for _, err := range []error{&transport.Error{Err: io.EOF}, context.DeadlineExceeded} {
		r, aerr := audit.Client(context.Background(), fakeCaller{tools: tl, err: err}, audit.WithProbe())
		require.NoError(t, aerr)
		assert.Contains(t, dFindings(r, "t_x"), audit.CheckNoAnswer, text(r))
	}
	r, err := audit.Client(context.Background(), fakeCaller{tools: tl, err: errors.New("invalid params")}, audit.WithProbe())
	require.NoError(t, err)
	assert.Contains(t, dFindings(r, "t_x"), audit.CheckJSONRPC)
	assert.NotContains(t, dFindings(r, "t_x"), audit.CheckLeak)
	r, err = audit.Client(context.Background(), fakeCaller{tools: tl, err: errors.New("handler panicked: " + goroutineStack)}, audit.WithProbe())
	require.NoError(t, err)
	assert.Contains(t, dFindings(r, "t_x"), audit.CheckLeak)
	assert.NotContains(t, text(r), "/home/dev", "the report never repeats a leak")
}

// listFails fails tools/list.
type listFails struct{ fakeCaller }

func (listFails) ListTools(context.Context, mcp.ListToolsRequest) (*mcp.ListToolsResult, error) {
	return nil, errors.New("boom")
}

func TestAuditErrors(t *testing.T) {
	_, err := audit.Client(context.Background(), listFails{}, audit.WithProbe())
	assert.ErrorContains(t, err, "tools/list")
	_, err = audit.Client(context.Background(), nil)
	assert.Error(t, err)
	_, err = audit.Server(context.Background(), nil)
	assert.Error(t, err)
}

// Many audits of one server at once: run under -race.
func TestProbeConcurrent(t *testing.T) {
	var rec calls
	s := goodServer(&rec)
	var wg sync.WaitGroup
	reports := make([]*audit.Report, 16)
	for i := range reports {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := audit.Server(context.Background(), s, audit.WithProbe())
			if err == nil {
				reports[i] = r
			}
		}()
	}
	wg.Wait()
	for _, r := range reports {
		require.NotNil(t, r)
		assert.Equal(t, reports[0].Findings, r.Findings)
		assert.Equal(t, reports[0].Scores, r.Scores)
	}
}

// recorderTB records failures instead of failing the real test.
type recorderTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorderTB) Helper() {}
func (r *recorderTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, format)
}

func TestRequireFailsOnThreshold(t *testing.T) {
	rt := &recorderTB{TB: t}
	audittest.Require(rt, loadTools(t, "testdata/v1.7.0.json"))
	assert.Equal(t, audit.Tools(loadTools(t, "testdata/v1.7.0.json")).Count(audit.Error), len(rt.errors))

	rt = &recorderTB{TB: t}
	audittest.RequireServer(rt, badServer(&calls{}), audit.WithProbe())
	assert.NotEmpty(t, rt.errors)

	rt = &recorderTB{TB: t}
	r := audittest.RequireServer(rt, goodServer(&calls{}), audit.WithProbe())
	assert.Empty(t, rt.errors, "only warnings on B and C; threshold is error")
	assert.False(t, r.Perfect())

	rt = &recorderTB{TB: t}
	audittest.RequireServer(rt, goodServer(&calls{}), audit.WithProbe(), audit.WithFailOn(audit.Warning))
	assert.NotEmpty(t, rt.errors)
}

// mcp-go's own schema validation answers before any tool middleware, so
// the fix for its plain-text errors is to replace it, not to add Default.
func TestProbeMCPGoSchemaValidation(t *testing.T) {
	s := server.NewMCPServer("t", "1", server.WithInputSchemaValidation())
	s.Use(goodServerChain()...)
	s.AddTool(mcp.NewTool("t_get", mcp.WithString("id", mcp.Required(), mcp.Pattern("^[a-z]{3}$"))),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		})
	r, err := audit.Server(context.Background(), s, audit.WithProbe())
	require.NoError(t, err)
	f, ok := dFindings(r, "t_get")[audit.CheckEnvelope]
	require.True(t, ok, text(r))
	assert.Contains(t, f.Message, "mcp-go's own input validation text")
	assert.Contains(t, f.Fix, "drop server.WithInputSchemaValidation()")
	assert.NotContains(t, f.Fix, "middleware.Default()")
}
