package gosdk_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// stdioChild names the log file of the re-executed test binary that
// serves a go-sdk server over stdio.
const stdioChild = "MCPGUARD_GOSDK_STDIO_CHILD_LOG"

// go-sdk encodes a response in its jsonrpc2 layer, outside any recover: a
// structuredContent whose MarshalJSON panics ended the process, which
// printed the panic value (a DSN) to stderr. The child serves the
// Middleware over go-sdk's StdioTransport; the parent is a go-sdk client
// over CommandTransport. Before the fix the child died at the first call.
func TestStdioServerSurvivesAResultGoSDKCannotEncode(t *testing.T) {
	if path := os.Getenv(stdioChild); path != "" {
		serveGoSDKStdio(t, path)
		return
	}
	if testing.Short() {
		t.Skip("runs a child process")
	}
	t.Parallel()
	logPath := t.TempDir() + "/server.log"
	cmd := exec.Command(os.Args[0], "-test.run=^TestStdioServerSurvivesAResultGoSDKCannotEncode$", "-test.count=1")
	cmd.Env = append(os.Environ(), stdioChild+"="+logPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	c := gosdktest.Dial(t, &mcp.CommandTransport{Command: cmd})
	r := c.Call("shop_report", nil).ExpectError(gosdk.InternalError).NoLeak(dsn, "hunter2")
	c.Call("shop_ping", nil).ExpectSuccess()
	env, ok := gosdk.Parse(r.Text())
	if !ok || env.IncidentID == "" {
		t.Fatalf("no incident in %s", r.Raw)
	}
	_ = c.Close()
	_ = cmd.Wait()
	for _, leak := range []string{dsn, "hunter2", "panic:", "goroutine "} {
		if strings.Contains(stderr.String(), leak) {
			t.Errorf("%q reached stderr:\n%s", leak, &stderr)
		}
	}
	logged, _ := os.ReadFile(logPath)
	if !bytes.Contains(logged, []byte(env.IncidentID)) || !bytes.Contains(logged, []byte("hunter2")) {
		t.Errorf("the server log does not hold the panic under incident %s:\n%s", env.IncidentID, logged)
	}
}

func serveGoSDKStdio(t *testing.T, path string) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := newGuardedServer(gosdk.WithLogger(slog.New(slog.NewJSONHandler(f, nil))))
	lowLevel(s, "shop_report", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return withResult(func(r *mcp.CallToolResult) { r.StructuredContent = panicky{} }), nil
	})
	lowLevel(s, "shop_ping", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return okText(), nil })
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
}
