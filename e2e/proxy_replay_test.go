package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// replayLeak is a tool failure's text as careless servers write it: a
// DSN with its password, a token and a stack trace.
const replayLeak = "query failed: dial postgres://admin:Sup3rS3cretPw@db.internal:5432/prod (token ghp_abcdefghijklmnopqrstuvwxyz0123456789)\ngoroutine 7 [running]:\nmain.(*Store).Query(0xc000010000)\n\t/srv/app/store.go:88 +0x1d"

// replayLeaks are the parts of replayLeak no client may read.
var replayLeaks = []string{"Sup3rS3cretPw", "ghp_abcdef", "goroutine 7", "store.go:88"}

// replayServer is a go-sdk streamable HTTP server with an event store, so
// that every event stream can be resumed, and replayed, with Last-Event-ID.
// query fails with an isError result, query_rpc with a JSON-RPC error,
// both carrying replayLeak.
func replayServer(t *testing.T) string {
	s := mcp.NewServer(&mcp.Implementation{Name: "store", Version: "1.0.0"}, nil)
	schema := json.RawMessage(`{"type":"object"}`)
	s.AddTool(&mcp.Tool{Name: "query", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: replayLeak}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "query_rpc", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New(replayLeak)
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// rawMCP is a client of streamable HTTP that keeps every byte it reads.
type rawMCP struct {
	t   *testing.T
	url string
	sid string
}

func (c *rawMCP) do(method, body string, header ...string) string {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, c.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.sid = sid
	}
	// A resumed stream may stay open once replayed: read until an answer.
	var got strings.Builder
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		got.WriteString(sc.Text() + "\n")
		if method == http.MethodGet && strings.HasPrefix(sc.Text(), "data: {") && strings.Contains(sc.Text(), `"id"`) {
			break
		}
	}
	return got.String()
}

func (c *rawMCP) initialize() {
	c.do(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	c.do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// primingEvent is the id of the first event of a stream.
func primingEvent(t *testing.T, body string) string {
	t.Helper()
	for _, line := range strings.Split(body, "\n") {
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			return id
		}
	}
	t.Fatalf("no event id in %q", body)
	return ""
}

// TestProxyHTTPReplayedStream: a go-sdk server with an event store answers
// a failing call on its POST stream, which the proxy rewrites; a GET with
// Last-Event-ID set to that stream's priming event has the server replay
// its own answer. Directly, the replay carries the DSN's password, the
// token and the stack trace; through mcpguard-proxy it is rewritten as
// the first answer was, and none of them reaches the client.
func TestProxyHTTPReplayedStream(t *testing.T) {
	t.Parallel()
	proxy := proxyBin(t)
	up := replayServer(t)
	via := startProxy(t, proxy, up)
	for _, tool := range []string{"query", "query_rpc"} {
		call := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, tool)

		direct := &rawMCP{t: t, url: up}
		direct.initialize()
		first := direct.do(http.MethodPost, call)
		replay := direct.do(http.MethodGet, "", "Last-Event-ID", primingEvent(t, first))
		if !strings.Contains(replay, "Sup3rS3cretPw") {
			t.Fatalf("the control: directly, %s's replay should carry the server's own answer: %q", tool, replay)
		}

		c := &rawMCP{t: t, url: via}
		c.initialize()
		first = c.do(http.MethodPost, call)
		for _, leak := range replayLeaks {
			if strings.Contains(first, leak) {
				t.Fatalf("%s's first answer through the proxy leaked %q: %s", tool, leak, first)
			}
		}
		replay = c.do(http.MethodGet, "", "Last-Event-ID", primingEvent(t, first))
		for _, leak := range replayLeaks {
			if strings.Contains(replay, leak) {
				t.Errorf("%s's replayed answer through the proxy leaked %q: %s", tool, leak, replay)
			}
		}
		if !strings.Contains(replay, `"id":7`) || !strings.Contains(replay, `"isError":true`) {
			t.Errorf("%s's replay through the proxy is not its envelope under the client's id: %s", tool, replay)
		}
	}
}
