package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

var shopBuild struct {
	once sync.Once
	dir  string // removed when the tests end (TestMain)
	path string
	err  error
}

// shopServer builds the repository's example shop (example/cmd/shop-server)
// once per test binary: a real mcp-go server, which decodes JSON-RPC with
// encoding/json, matching keys case-insensitively.
func shopServer(t *testing.T) string {
	t.Helper()
	shopBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "mcpguard-proxy-shop-")
		if err != nil {
			shopBuild.err = err
			return
		}
		shopBuild.dir = dir
		shopBuild.path = filepath.Join(dir, "shop-server")
		if runtime.GOOS == "windows" {
			shopBuild.path += ".exe"
		}
		cmd := exec.Command("go", "build", "-o", shopBuild.path, "./cmd/shop-server")
		cmd.Dir = filepath.Join("..", "..", "..", "..", "example")
		if out, err := cmd.CombinedOutput(); err != nil {
			shopBuild.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if shopBuild.err != nil {
		t.Fatalf("building the example shop: %v", shopBuild.err)
	}
	return shopBuild.path
}

// hostile are client messages the proxy and an mcp-go server would read
// differently without the fix (each a tools/call to mcp-go, and to the
// proxy either no call or a call of other arguments), or that parsers
// read differently (duplicates). %d is the id. nullID: the id itself is
// in doubt, so the refusal's id is null.
var hostile = []struct {
	name, msg string
	nullID    bool
}{
	{"Method", `{"jsonrpc":"2.0","id":%d,"method":"ping","Method":"tools/call","params":{"name":"shop_store_hours","arguments":{"day":"monday"}}}`, false},
	{"escaped METHOD", `{"jsonrpc":"2.0","id":%d,"method":"ping","\u004dETHOD":"tools/call","params":{"name":"shop_store_hours","arguments":{"day":"monday"}}}`, false},
	{"Params", `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"shop_store_hours","arguments":{"day":"monday"}},"Params":{"name":"shop_search","arguments":{"query":"x"}}}`, false},
	{"Unicode fold of params", `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"shop_store_hours","arguments":{"day":"monday"}},"paramſ":{"name":"shop_search","arguments":{"query":"x"}}}`, false},
	{"ID", `{"jsonrpc":"2.0","id":%d,"ID":"other","method":"tools/call","params":{"name":"shop_store_hours","arguments":{"day":"monday"}}}`, true},
	{"Name", `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"shop_store_hours","Name":"shop_search","arguments":{"day":"monday"}}}`, false},
	{"Arguments", `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"shop_store_hours","arguments":{"day":"monday"},"ARGUMENTS":{"day":"someday"}}}`, false},
	{"_Meta", `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"shop_store_hours","arguments":{"day":"monday"},"_meta":{},"_Meta":{"progressToken":1}}}`, false},
	{"duplicate method", `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"shop_store_hours","arguments":{"day":"monday"}},"method":"ping"}`, false},
	{"duplicate id", `{"jsonrpc":"2.0","id":%d,"id":5,"method":"ping"}`, true},
	{"duplicate escaped params", `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"shop_store_hours","arguments":{"day":"monday"}},"p\u0061rams":{}}`, false},
	{"duplicate name", `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"shop_search","arguments":{"day":"monday"},"name":"shop_store_hours"}}`, false},
	{"duplicate jsonrpc", `{"jsonrpc":"2.0","jsonrpc":"1.0","id":%d,"method":"ping"}`, false},
	{"Result in an answer", `{"jsonrpc":"2.0","id":%d,"result":{},"Result":{"x":1}}`, false},
}

// checkRefusal fails unless resp is the -32600 refusal of a hostile
// message, with the message's id or, when the id is in doubt, null.
func checkRefusal(t *testing.T, resp map[string]any, id int, nullID bool) {
	t.Helper()
	e, ok := resp["error"].(map[string]any)
	if !ok || e["code"] != float64(-32600) || !strings.Contains(fmt.Sprint(e["message"]), "another case") {
		t.Fatalf("want a -32600 refusal, got %v", resp)
	}
	want := any(float64(id))
	if nullID {
		want = nil
	}
	if resp["id"] != want {
		t.Errorf("the refusal's id is %v, want %v", resp["id"], want)
	}
}

// Over stdio, in front of the example shop (mcp-go): a message the proxy
// and mcp-go would read differently is refused with -32600 and never
// reaches the server, which would have answered it.
func TestStdioRefusesAmbiguousMessages(t *testing.T) {
	s := startCmd(t, []string{shopServer(t), "-plain"})
	if got := textOf(t, s.call("shop_store_hours", `{"day":"monday"}`)); !strings.Contains(got, "09:00") {
		t.Fatalf("an ordinary call: %q", got)
	}
	for i, h := range hostile {
		t.Run(h.name, func(t *testing.T) {
			id := 1000 + i
			s.send(fmt.Sprintf(h.msg, id))
			var resp map[string]any
			if err := json.Unmarshal(s.read(), &resp); err != nil {
				t.Fatal(err)
			}
			checkRefusal(t, resp, id, h.nullID)
			// The server never saw it: the next answer is a ping's, and
			// nothing came for the hostile id.
			s.other = nil
			s.request("ping", `{}`)
			for _, o := range s.other {
				if strings.Contains(string(o), fmt.Sprintf(`"id":%d`, id)) {
					t.Errorf("the server answered the refused message: %s", o)
				}
			}
		})
	}
	if !strings.Contains(s.logs.String(), "refused an ambiguous client message") {
		t.Errorf("no warning logged:\n%s", s.logs.String())
	}
}

// shopHTTP runs the example shop (mcp-go) as a streamable HTTP server and
// returns its endpoint.
func shopHTTP(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, shopServer(t), "-plain", "-http", addr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the shop did not listen on %s", addr)
		}
	}
	return "http://" + addr + "/mcp"
}

// postIn posts body in the MCP session sid ("" for none) and returns the
// status, the body and the session id the server gave.
func postIn(t *testing.T, url, sid, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get("Mcp-Session-Id")
}

// Over HTTP, in front of the example shop (mcp-go): the same messages are
// refused with HTTP 400 and a -32600 body, and never reach the server.
func TestHTTPRefusesAmbiguousMessages(t *testing.T) {
	url := proxyFor(t, shopHTTP(t))
	_, body, sid := postIn(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if sid == "" {
		t.Fatalf("no session: %s", body)
	}
	postIn(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if _, body, _ := postIn(t, url, sid, callBody(2, "shop_store_hours", `{"day":"monday"}`)); !strings.Contains(body, "09:00") {
		t.Fatalf("an ordinary call: %s", body)
	}
	for i, h := range hostile {
		t.Run(h.name, func(t *testing.T) {
			id := 1000 + i
			code, body, _ := postIn(t, url, sid, fmt.Sprintf(h.msg, id))
			if code != http.StatusBadRequest {
				t.Errorf("status %d, want 400: %s", code, body)
			}
			checkRefusal(t, lastData(t, body), id, h.nullID)
		})
	}
}

// A JSON-RPC batch over HTTP would pass through the proxy unread: tool
// calls escaping the rate limits, the schema check and the rewriting of
// answers, in front of a server that still takes batches (go-sdk's does
// on protocols before 2025-06-18, the TypeScript SDK's on any). It is
// refused as stdio refuses one, with HTTP 400 (go-sdk's status for a
// batch on 2025-06-18, and the TypeScript SDK's for a message it refuses)
// and a -32600 body, before the upstream sees it.
func TestHTTPRefusesBatches(t *testing.T) {
	var mu sync.Mutex
	seen := 0
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `[{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"password=hunter2"}],"isError":true}}]`)
	}))
	t.Cleanup(up.Close)
	url := proxyFor(t, up.URL, proxy.WithRate(0.001, 1))
	batch := "[" + callBody(1, "fail", `{}`) + "," + callBody(2, "fail", `{}`) + "]"
	for _, b := range []string{batch, "  \n" + batch, `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`} {
		code, body, _ := postIn(t, url, "", b)
		if code != http.StatusBadRequest || strings.Contains(body, "hunter2") {
			t.Errorf("a batch: %d %s", code, body)
			continue
		}
		m := lastData(t, body)
		if e, ok := m["error"].(map[string]any); !ok || e["code"] != float64(-32600) || m["id"] != nil {
			t.Errorf("a batch's refusal: %s", body)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if seen != 0 {
		t.Errorf("the upstream saw %d batches", seen)
	}
}
