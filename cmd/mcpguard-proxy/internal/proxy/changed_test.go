package proxy_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
)

// The tools of a server whose tools change: before, set_limit takes a
// limit of at most 10; after, a limit of at least 50, and the tool added
// exists. change makes the change and says so with
// notifications/tools/list_changed, before it answers.
const (
	toolsBefore = `{"tools":[{"name":"set_limit","inputSchema":{"type":"object","properties":{"limit":{"type":"integer","maximum":10}}}},{"name":"change","inputSchema":{"type":"object"}}]}`
	toolsAfter  = `{"tools":[{"name":"set_limit","inputSchema":{"type":"object","properties":{"limit":{"type":"integer","minimum":50}}}},{"name":"change","inputSchema":{"type":"object"}},{"name":"added","inputSchema":{"type":"object"}}]}`
	listChanged = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
)

// changingServer answers one message of a server whose tools change, as
// the JSON-RPC messages to send back (nil for none).
type changingServer struct {
	mu      sync.Mutex
	changed bool
}

func (c *changingServer) answer(b []byte) []string {
	var m childMsg
	if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 || m.Method == "" {
		return nil
	}
	reply := func(r string) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, r) }
	text := func(t string) string { return reply(`{"content":[{"type":"text","text":"` + t + `"}]}`) }
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case m.Method == "initialize":
		return []string{reply(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"changing","version":"1"}}`)}
	case m.Method == "tools/list" && c.changed:
		return []string{reply(toolsAfter)}
	case m.Method == "tools/list":
		return []string{reply(toolsBefore)}
	case m.Method != "tools/call":
		return []string{reply(`{}`)}
	case m.Params.Name == "change":
		c.changed = true
		return []string{listChanged, text("changed")}
	}
	return []string{text(fmt.Sprintf("server ran %s %v", m.Params.Name, m.Params.Arguments["limit"]))}
}

// changingChild is changingServer on stdio.
func changingChild() {
	var c changingServer
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		for _, out := range c.answer(in.Bytes()) {
			fmt.Println(out)
		}
	}
}

// checkCurrentSchemas calls set_limit and added after the server's tools
// changed: the limit the new schema forbids is refused by the proxy, the
// one it allows reaches the server, and the tool added is called.
func checkCurrentSchemas(t *testing.T, call func(id int, tool, args string) map[string]any) {
	t.Helper()
	if got := textOf(t, call(2, "set_limit", `{"limit":5}`)); got != "server ran set_limit 5" {
		t.Fatalf("before the change: %q", got)
	}
	if got := textOf(t, call(3, "change", `{}`)); got != "changed" {
		t.Fatalf("change: %q", got)
	}
	if env := envelopeOf(t, call(4, "set_limit", `{"limit":5}`)); env["error_type"] != "validation_error" {
		t.Errorf("a limit the new schema forbids: %v", env)
	}
	if resp := call(5, "set_limit", `{"limit":60}`); resp["result"] == nil || textOf(t, resp) != "server ran set_limit 60" {
		t.Errorf("a limit the new schema allows: %v", resp)
	}
	if resp := call(6, "added", `{}`); resp["result"] == nil || textOf(t, resp) != "server ran added <nil>" {
		t.Errorf("the tool added: %v", resp)
	}
}

// After notifications/tools/list_changed, calls over stdio are checked
// against the tools as the server lists them now, before any client
// lists them again.
func TestStdioSchemasFollowListChanged(t *testing.T) {
	s := startCmd(t, []string{os.Args[0], "changing-child"})
	checkCurrentSchemas(t, func(_ int, tool, args string) map[string]any { return s.call(tool, args) })
}

// The same over streamable HTTP, the notification coming on the POST
// stream of the call that changed the tools, or on a GET stream of the
// session, as mcp-go's and go-sdk's servers send it.
func TestHTTPSchemasFollowListChanged(t *testing.T) {
	for _, onGET := range []bool{false, true} {
		t.Run(fmt.Sprint("onGET=", onGET), func(t *testing.T) {
			var c changingServer
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Mcp-Session-Id", "s-1")
				w.Header().Set("Content-Type", "text/event-stream")
				if r.Method == http.MethodGet {
					fmt.Fprintf(w, "event: message\ndata: %s\n\n", listChanged)
					return
				}
				b, _ := io.ReadAll(r.Body)
				out := c.answer(b)
				if out == nil {
					w.WriteHeader(http.StatusAccepted)
					return
				}
				for _, msg := range out {
					if msg != listChanged || !onGET {
						fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
					}
				}
			}))
			t.Cleanup(up.Close)
			url := proxyFor(t, up.URL)
			_, _, sid := postIn(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			checkCurrentSchemas(t, func(id int, tool, args string) map[string]any {
				_, body, _ := postIn(t, url, sid, callBody(id, tool, args))
				if tool == "change" && onGET {
					if got := resumeFrom(t, url, sid, ""); !strings.Contains(got, "list_changed") {
						t.Fatalf("the GET stream: %q", got)
					}
				}
				return lastData(t, body)
			})
		})
	}
}
