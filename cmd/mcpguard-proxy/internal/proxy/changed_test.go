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

// sessionToolsUpstream is a streamable HTTP server that lists each session
// its own tools, as mcp-go's AddSessionTool does: in session a, lookup
// takes an id of at most 10; in session b, an id of at least 100, and b
// alone has b_only. The session is named by the client's name.
func sessionToolsUpstream(t *testing.T) *httptest.Server {
	tools := map[string]string{
		"s-a": `{"tools":[{"name":"lookup","inputSchema":{"type":"object","properties":{"id":{"type":"integer","maximum":10}}}}]}`,
		"s-b": `{"tools":[{"name":"lookup","inputSchema":{"type":"object","properties":{"id":{"type":"integer","minimum":100}}}},{"name":"b_only","inputSchema":{"type":"object"}}]}`,
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name       string         `json:"name"`
				Arguments  map[string]any `json:"arguments"`
				ClientInfo struct {
					Name string `json:"name"`
				} `json:"clientInfo"`
			} `json:"params"`
		}
		b, _ := io.ReadAll(r.Body)
		if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		sid := r.Header.Get("Mcp-Session-Id")
		result := `{}`
		switch m.Method {
		case "initialize":
			sid = "s-" + m.Params.ClientInfo.Name
			w.Header().Set("Mcp-Session-Id", sid)
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"sessions","version":"1"}}`
		case "tools/list":
			result = tools[sid]
		case "tools/call":
			result = fmt.Sprintf(`{"content":[{"type":"text","text":"%s ran %s %v"}]}`, sid, m.Params.Name, m.Params.Arguments["id"])
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
	}))
	t.Cleanup(up.Close)
	return up
}

// Over HTTP, each session's calls are checked against the tools the
// server listed to that session, whichever session listed last and
// whether the client or the proxy listed them.
func TestHTTPSchemasPerSession(t *testing.T) {
	for _, clientLists := range []bool{false, true} {
		t.Run(fmt.Sprint("clientLists=", clientLists), func(t *testing.T) {
			url := proxyFor(t, sessionToolsUpstream(t).URL)
			init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"%s","version":"1"}}}`
			_, _, a := postIn(t, url, "", fmt.Sprintf(init, "a"))
			_, _, b := postIn(t, url, "", fmt.Sprintf(init, "b"))
			call := func(sid string, id int, tool, args string) map[string]any {
				_, body, _ := postIn(t, url, sid, callBody(id, tool, args))
				return lastData(t, body)
			}
			if clientLists {
				postIn(t, url, a, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
				postIn(t, url, b, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			} else {
				call(a, 2, "lookup", `{"id":1}`) // the proxy lists a's tools
				call(b, 2, "lookup", `{"id":100}`)
			}
			if got := textOf(t, call(a, 3, "lookup", `{"id":5}`)); got != "s-a ran lookup 5" {
				t.Errorf("in a, an id a's schema allows: %q", got)
			}
			if env := envelopeOf(t, call(a, 4, "lookup", `{"id":500}`)); env["error_type"] != "validation_error" {
				t.Errorf("in a, an id a's schema forbids: %v", env)
			}
			if got := textOf(t, call(b, 3, "lookup", `{"id":500}`)); got != "s-b ran lookup 500" {
				t.Errorf("in b, an id b's schema allows: %q", got)
			}
			if env := envelopeOf(t, call(b, 4, "lookup", `{"id":5}`)); env["error_type"] != "validation_error" {
				t.Errorf("in b, an id b's schema forbids: %v", env)
			}
			if got := textOf(t, call(b, 5, "b_only", `{}`)); got != "s-b ran b_only <nil>" {
				t.Errorf("in b, its own tool: %q", got)
			}
			if resp := call(a, 5, "b_only", `{}`); resp["error"] == nil {
				t.Errorf("in a, a tool only b has: %v", resp)
			}
		})
	}
}
