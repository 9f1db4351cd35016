package recover_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
)

// stdioChild names the log file of the re-executed test binary that serves
// a real mcp-go stdio server on its stdin and stdout.
const stdioChild = "MCPGUARD_STDIO_CHILD_LOG"

// mcp-go's StdioServer encodes a response after every middleware has
// returned, outside any recover: a structuredContent whose MarshalJSON
// panics ended the process, which printed the panic value (a DSN) to
// stderr. The child process serves the Default chain on stdio; the parent
// is its client. Before the fix the child died at the second request.
func TestStdioServerSurvivesAResultItCannotEncode(t *testing.T) {
	if path := os.Getenv(stdioChild); path != "" {
		serveStdio(t, path)
		return
	}
	if testing.Short() {
		t.Skip("runs a child process")
	}
	t.Parallel()
	logPath := t.TempDir() + "/server.log"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard, not an assertion
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestStdioServerSurvivesAResultItCannotEncode$", "-test.count=1")
	cmd.Env = append(os.Environ(), stdioChild+"="+logPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &stdioClient{t: t, in: stdin, out: bufio.NewScanner(stdout), stderr: &stderr}
	c.out.Buffer(nil, 1<<20)
	c.request(1, "initialize", map[string]any{
		"protocolVersion": mcp.LATEST_PROTOCOL_VERSION, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "test", "version": "0"},
	})
	c.await(1)
	c.request(2, "tools/call", map[string]any{"name": "shop_report"})
	hostile := c.await(2)
	c.request(3, "tools/call", map[string]any{"name": "shop_ping"})
	ping := c.await(3)
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the server process failed: %v\nstderr:\n%s", err, &stderr)
	}

	env := envelopeOf(t, hostile)
	if env.ErrorType != envelope.InternalError || env.IncidentID == "" {
		t.Errorf("the unencodable result: want an internal_error with an incident ID, got %s", hostile)
	}
	if !strings.Contains(string(ping), `"pong"`) {
		t.Errorf("the server stopped answering after it: %s", ping)
	}
	for _, leak := range []string{dsn, "s3cr3t", "panic:", "goroutine "} {
		if strings.Contains(stderr.String(), leak) || bytes.Contains(hostile, []byte(leak)) {
			t.Errorf("%q reached stderr or the client:\nstderr: %s\nresponse: %s", leak, &stderr, hostile)
		}
	}
	logged, _ := os.ReadFile(logPath)
	if !bytes.Contains(logged, []byte(env.IncidentID)) || !bytes.Contains(logged, []byte("s3cr3t")) {
		t.Errorf("the server log does not hold the panic under incident %s:\n%s", env.IncidentID, logged)
	}
}

// serveStdio is the child: the Default chain logging to the file at path,
// a tool whose result cannot be encoded, and one that answers.
func serveStdio(t *testing.T, path string) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := server.NewMCPServer("stdio-child", "0.0.0", server.WithToolCapabilities(false))
	s.Use(middleware.Default(middleware.WithLogger(slog.New(slog.NewJSONHandler(f, nil))))...)
	s.AddTool(mcp.NewTool("shop_report"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := mcp.NewToolResultText("report")
		res.StructuredContent = panicky{}
		return res, nil
	})
	s.AddTool(mcp.NewTool("shop_ping"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("pong"), nil
	})
	stdio := server.NewStdioServer(s)
	stdio.SetErrorLogger(log.New(os.Stderr, "", 0))
	if err := stdio.Listen(context.Background(), os.Stdin, os.Stdout); err != nil && err != io.EOF && !strings.Contains(err.Error(), "EOF") {
		t.Fatal(err)
	}
}

// stdioClient writes JSON-RPC requests to the child and reads its
// responses, skipping what the test binary itself prints.
type stdioClient struct {
	t      *testing.T
	in     io.Writer
	out    *bufio.Scanner
	stderr *bytes.Buffer
	seen   map[float64][]byte
}

func (c *stdioClient) request(id int, method string, params any) {
	c.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := fmt.Fprintf(c.in, "%s\n", b); err != nil {
		c.t.Fatalf("writing request %d: %v", id, err)
	}
}

// await returns the response with the given id; responses to tool calls
// may arrive in any order.
func (c *stdioClient) await(id float64) []byte {
	c.t.Helper()
	if c.seen == nil {
		c.seen = map[float64][]byte{}
	}
	for c.seen[id] == nil {
		if !c.out.Scan() {
			c.t.Fatalf("the server process ended before answering request %v\nstderr:\n%s", id, c.stderr)
		}
		var msg struct {
			ID *float64 `json:"id"`
		}
		line := append([]byte(nil), c.out.Bytes()...)
		if json.Unmarshal(line, &msg) == nil && msg.ID != nil {
			c.seen[*msg.ID] = line
		}
	}
	return c.seen[id]
}

func envelopeOf(t *testing.T, response []byte) *envelope.Envelope {
	t.Helper()
	var resp struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(response, &resp); err != nil || resp.Result == nil {
		t.Fatalf("not a result: %s", response)
	}
	res, err := mcp.ParseCallToolResult(&resp.Result)
	if err != nil {
		t.Fatal(err)
	}
	env, ok := envelope.FromResult(res)
	if !ok {
		t.Fatalf("no envelope in %s", response)
	}
	return env
}
