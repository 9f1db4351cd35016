package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
	gosdklimit "github.com/mcpguard/mcpguard/gosdk/limit"
)

// mrtrState is the requestState the deploy tool hands out, shaped like a
// sealed state (a long base64url run), which a redactor takes for a token.
const mrtrState = "v1.Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG9mcmVkcGx1Z3h5enp5.c2VhbGVk"

// mrtrDeploy asks the client to confirm before it deploys (SEP-2322).
type mrtrDeploy struct {
	mu     sync.Mutex
	states []string // the requestState of each round, as the handler read it
}

func (d *mrtrDeploy) handle(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	d.mu.Lock()
	d.states = append(d.states, req.Params.RequestState)
	d.mu.Unlock()
	if _, ok := req.Params.InputResponses["confirm"]; ok {
		var args struct {
			Environment string `json:"environment"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &args)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed to " + args.Environment}}}, nil
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Deploy?"}},
		RequestState:  mrtrState,
	}, nil
}

func (d *mrtrDeploy) rounds() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.states...)
}

var deploySchema = json.RawMessage(`{"type":"object","properties":{"environment":{"type":"string","enum":["staging","production"]}},"required":["environment"]}`)

// mrtrSession serves deploy under gosdk.Middleware(opts...) and connects
// go-sdk's own 2026-07-28 client, which answers elicitations by accepting
// them; auto says whether it retries by itself.
func mrtrSession(t *testing.T, d *mrtrDeploy, auto bool, opts ...gosdk.Option) *mcp.ClientSession {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "deploy", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "deploy", InputSchema: deploySchema}, d.handle)
	s.AddReceivingMiddleware(gosdk.Middleware(opts...))
	c := mcp.NewClient(&mcp.Implementation{Name: "mrtr", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: !auto},
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s, want the multi round-trip revision", v)
	}
	return cs
}

// TestInputRequiredPassesThroughMiddleware: behind gosdk.Middleware (with
// the logger and redaction of successes), go-sdk's client completes a
// multi round-trip call by itself; the requestState comes back to the
// handler byte for byte; the log has a record per round, neither a
// failure.
func TestInputRequiredPassesThroughMiddleware(t *testing.T) {
	t.Parallel()
	log := gosdktest.NewLog(t)
	d := &mrtrDeploy{}
	cs := mrtrSession(t, d, true, gosdk.WithLogger(log.Logger()), gosdk.WithRedactSuccesses())
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"environment": "production"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.NeedsInput() || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "deployed to production" {
		t.Fatalf("the flow did not complete: %+v", res)
	}
	if got := d.rounds(); len(got) != 2 || got[0] != "" || got[1] != mrtrState {
		t.Fatalf("the handler read the states %q, want the one it handed out back", got)
	}
	rounds := 0
	for _, r := range log.Records() {
		if r["msg"] != "mcpguard: tool call" {
			continue
		}
		rounds++
		if r["outcome"] == "tool_error" || r["outcome"] == "protocol_error" || r["error_type"] != nil {
			t.Errorf("a round was recorded as a failure: %v", r)
		}
	}
	if rounds != 2 {
		t.Errorf("want one record per round, got %d: %v", rounds, log.Records())
	}
}

// TestInputRequiredRoundsAreCheckedAsCalls: with go-sdk's client retrying
// by hand, the input_required answer reaches it whole (no isError, the
// state as handed out, the input requests); a retry with arguments the
// declared schema refuses is answered validation_error without running
// the handler; and with a burst of one, the retry is refused by the rate
// limit.
func TestInputRequiredRoundsAreCheckedAsCalls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	confirm := mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}}

	d := &mrtrDeploy{}
	cs := mrtrSession(t, d, false)
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"environment": "production"}})
	if err != nil {
		t.Fatal(err)
	}
	if !first.NeedsInput() || first.IsError || first.RequestState == "" || first.InputRequests["confirm"] == nil {
		t.Fatalf("the input_required answer did not reach the client whole: %+v", first)
	}
	if first.RequestState == mrtrState {
		t.Fatalf("the handler's requestState went out unsealed: %q", first.RequestState)
	}
	retry, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"environment": "prod; rm -rf /"},
		InputResponses: confirm, RequestState: first.RequestState})
	if err != nil {
		t.Fatal(err)
	}
	if env := envelopeOfResult(t, retry); env["error_type"] != "validation_error" {
		t.Errorf("a retry with refused arguments: %v", env)
	}
	if got := d.rounds(); len(got) != 1 {
		t.Errorf("the handler ran %d times, want once (the refused retry must not run it)", len(got))
	}

	limited := &mrtrDeploy{}
	cs = mrtrSession(t, limited, false, gosdk.WithLimits(gosdklimit.Rate(0.001, 1)))
	first, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"environment": "production"}})
	if err != nil || !first.NeedsInput() {
		t.Fatalf("first round: %+v, %v", first, err)
	}
	retry, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"environment": "production"},
		InputResponses: confirm, RequestState: first.RequestState})
	if err != nil {
		t.Fatal(err)
	}
	if env := envelopeOfResult(t, retry); env["retryable"] != true || env["error_type"] != "execution_failed" {
		t.Errorf("a retry past a spent rate limit: %v", env)
	}
	if got := limited.rounds(); len(got) != 1 {
		t.Errorf("the handler ran %d times, want once (the refused retry must not run it)", len(got))
	}
}

// envelopeOfResult decodes the envelope of an isError result.
func envelopeOfResult(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if !res.IsError || len(res.Content) == 0 {
		t.Fatalf("want an isError result, got %+v", res)
	}
	var env map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &env); err != nil {
		t.Fatalf("not an envelope: %v", err)
	}
	return env
}

// TestAQuestionWithContentIsAToolFailure: a handler whose result asks for
// input and has content too gets, from go-sdk, a -32603 "server bug" in
// place of its result, which the client's model never reads. Behind
// gosdk.Middleware the client gets an internal_error envelope instead,
// whose incident the log records with go-sdk's reason.
func TestAQuestionWithContentIsAToolFailure(t *testing.T) {
	t.Parallel()
	log := gosdktest.NewLog(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "mixed", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "deploy", InputSchema: deploySchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			Content:       []mcp.Content{&mcp.TextContent{Text: "about to deploy"}},
			InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Deploy?"}},
			RequestState:  mrtrState,
		}, nil
	})
	s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithLogger(log.Logger())))
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"environment": "staging"}})
	if err != nil {
		t.Fatalf("a JSON-RPC error, which the model never reads: %v", err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("want an envelope, got %+v", res)
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	env, parsed := gosdk.Parse(text.Text)
	if !res.IsError || !parsed || env.ErrorType != gosdk.InternalError || env.IncidentID == "" {
		t.Fatalf("want an internal_error envelope with an incident, got %+v", res)
	}
	found := false
	for _, r := range log.Records() {
		if r["incident_id"] == env.IncidentID && strings.Contains(fmt.Sprint(r["error"]), "both content and inputRequests") {
			found = true
		}
	}
	if !found {
		t.Fatalf("no log record of incident %s with go-sdk's reason: %v", env.IncidentID, log.Records())
	}
}
