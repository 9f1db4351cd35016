package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/audit"
	"github.com/mcpguard/mcpguard/gosdk"
)

// plainGoSDK is a go-sdk server written the way public ones are: a
// hand-written schema on low-level tools that read their arguments by
// hand, and an mcp.AddTool tool. mw is the one line, or nothing.
func plainGoSDK(ran *atomic.Int64, mw ...mcp.Middleware) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "git", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "git_log", Description: "Show the commit log of a repository.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"repo_path":{"type":"string","description":"Repository"},
			"max_count":{"type":"integer","minimum":1,"maximum":50},
			"format":{"type":"string","enum":["oneline","full"]}},"required":["repo_path"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran.Add(1)
			var a struct {
				RepoPath string  `json:"repo_path"`
				MaxCount float64 `json:"max_count"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &a)
			if a.RepoPath == "" {
				a.RepoPath = "/srv/git/default"
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("log of %s: %v", a.RepoPath, a.MaxCount)}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "git_diff", Description: "Show the changes of a file.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"context":{"type":"integer","minimum":0,"maximum":20}},"required":["path"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran.Add(1)
			var a map[string]any
			_ = json.Unmarshal(req.Params.Arguments, &a)
			if _, ok := a["path"].(string); !ok {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "path is required"}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no changes"}}}, nil
		})
	type showArgs struct {
		Commit string `json:"commit" jsonschema:"the commit to show"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "git_show", Description: "Show a commit."},
		func(_ context.Context, _ *mcp.CallToolRequest, a showArgs) (*mcp.CallToolResult, any, error) {
			ran.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "commit " + a.Commit}}}, nil, nil
		})
	for _, m := range mw {
		s.AddReceivingMiddleware(m)
	}
	return s
}

// ruleDOverPipes serves s over newline-delimited JSON on pipes, as stdio
// does, audits it with a real mcp-go client and the probe, and returns
// rule D's score.
func ruleDOverPipes(t *testing.T, s *mcp.Server) audit.Score {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	go func() { _ = s.Run(ctx, &mcp.IOTransport{Reader: toServer, Writer: fromServer}) }()
	c := client.NewClient(transport.NewIO(toClient, fromClient, io.NopCloser(&emptyReader{})))
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	var init mcpgo.InitializeRequest
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "audit", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	r, err := audit.Client(ctx, c, audit.WithProbe())
	if err != nil {
		t.Fatal(err)
	}
	if r.Scores.D == nil {
		t.Fatal("no rule D score")
	}
	return *r.Scores.D
}

type emptyReader struct{}

func (*emptyReader) Read([]byte) (int, error) { return 0, io.EOF }

// TestDeclaredSchemasScoreRuleDOnGoSDK is the "done when" on
// go-sdk: the one line takes a plain server's rule D from below 60% to
// 100%, and no handler runs on the probe's invalid calls.
func TestDeclaredSchemasScoreRuleDOnGoSDK(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	without := ruleDOverPipes(t, plainGoSDK(&ran))
	if without.Percent >= 60 {
		t.Errorf("without the line: rule D %+v, want below 60%%", without)
	}
	t.Logf("without the line: rule D %+v", without)
	ran.Store(0)
	with := ruleDOverPipes(t, plainGoSDK(&ran, gosdk.Middleware()))
	if with.Percent != 100 || with.Checked == 0 {
		t.Errorf("with the line: rule D %+v, want 100%%", with)
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("handlers ran %d times on the probe's invalid calls", n)
	}
}
