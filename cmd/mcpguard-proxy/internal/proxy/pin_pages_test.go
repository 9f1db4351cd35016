package proxy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// pagedModes are pinServer's modes that page their tools (page):
// "paged" lists greet, then swap on a second page; "loop" answers every
// page with greet and the same nextCursor; "endless" lists a new tool
// with a long description on every page, forever; "slow" is loop at a
// tenth of a second a page.
var pagedModes = map[string]bool{"paged": true, "loop": true, "endless": true, "slow": true}

// page is pinServer's tools/list result for cursor, in a paged mode.
func (p *pinServer) page(cursor string) string {
	switch p.mode {
	case "paged":
		if cursor == "" {
			return `{"tools":[` + pinGreet + `],"nextCursor":"2"}`
		}
		return `{"tools":[` + pinSwap + `]}`
	case "endless":
		n, _ := strconv.Atoi(cursor)
		return fmt.Sprintf(`{"tools":[{"name":"pad%d","description":%q,"inputSchema":{"type":"object"}}],"nextCursor":"%d"}`,
			n, strings.Repeat("x", 6<<10), n+1)
	case "slow":
		time.Sleep(100 * time.Millisecond)
	}
	return `{"tools":[` + pinGreet + `],"nextCursor":"again"}`
}

// pagedClient is a client of a proxy with pins in front of pinServer in
// mode, over transport ("stdio" or "http"); lists is the number of
// tools/list requests the server answered, over HTTP (-1 over stdio).
func pagedClient(t *testing.T, transport, mode string, opts ...proxy.Option) (c pinClient, lists func() int) {
	t.Helper()
	pins, logs := pinsFor(t)
	opts = append([]proxy.Option{proxy.WithPins(pins)}, opts...)
	if transport == "stdio" {
		s := startCmd(t, []string{os.Args[0], "pin-child", mode}, append(opts, proxy.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))...)
		return pinClient{call: s.call, list: func() string {
			b, _ := json.Marshal(s.request("tools/list", `{}`))
			return string(b)
		}, logs: logs}, func() int { return -1 }
	}
	p := &pinServer{mode: mode}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Mcp-Session-Id", "s-1")
		b, _ := io.ReadAll(r.Body)
		out := p.answer(b)
		if out == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, msg := range out {
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
		}
	}))
	t.Cleanup(up.Close)
	url := proxyFor(t, up.URL, append(opts, proxy.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))...)
	_, _, sid := postIn(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	id := 1
	return pinClient{
			call: func(tool, args string) map[string]any {
				id++
				_, body, _ := postIn(t, url, sid, callBody(id, tool, args))
				return lastData(t, body)
			},
			list: func() string {
				id++
				_, body, _ := postIn(t, url, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id))
				b, _ := json.Marshal(lastData(t, body))
				return string(b)
			},
			logs: logs,
		}, func() int {
			p.mu.Lock()
			defer p.mu.Unlock()
			return p.lists
		}
}

// A server that pages its tools: the proxy's own listing reads every
// page, so a call of a tool on the second page is checked and runs,
// whether no client listed the tools or a client read the first page
// only; and a complete listing lets the proxy answer an unknown tool.
func TestPinsFollowEveryPageOfTheProxysListing(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			c, _ := pagedClient(t, transport, "paged")
			if got := textOf(t, c.call("swap", `{}`)); got != "swapped" {
				t.Fatalf("a call of a second page's tool, before any listing: %q", got) // swap says its tools changed
			}
			listing := c.list()
			if got := listedNames(t, listing); !slices.Equal(got, []string{"greet"}) || !strings.Contains(listing, `"nextCursor":"2"`) {
				t.Fatalf("the client's first page: %s", listing)
			}
			if got := textOf(t, c.call("swap", `{}`)); got != "swapped" {
				t.Fatalf("a call of a second page's tool, after a client read the first page: %q", got)
			}
			if resp := c.call("nope", `{}`); !strings.Contains(fmt.Sprint(resp["error"]), "greet, swap") {
				t.Errorf("an unknown tool, once every page was read: %v", resp)
			}
			if logs := c.logs.String(); strings.Contains(logs, "verdict=") || strings.Contains(logs, "stopped") {
				t.Errorf("a false alarm:\n%s", logs)
			}
		})
	}
}

// A server whose pages never end, by a cursor that loops or by new tools
// on every page: the proxy's listing stops at its bound, a page count or
// a byte count, with a warning; a tool it did not see is refused as never
// listed, and the listed ones run.
func TestPinsBoundTheProxysListing(t *testing.T) {
	for _, tc := range []struct{ mode, bound string }{{"loop", "bound=pages"}, {"endless", "bound=bytes"}} {
		for _, transport := range []string{"stdio", "http"} {
			t.Run(tc.mode+"/"+transport, func(t *testing.T) {
				var opts []proxy.Option
				if tc.mode == "endless" {
					opts = append(opts, proxy.WithMaxMessage(16<<10))
				}
				c, lists := pagedClient(t, transport, tc.mode, opts...)
				env := envelopeOf(t, c.call("swap", `{}`))
				if env["error_type"] != "access_denied" || !strings.Contains(fmt.Sprint(env["message"]), "has not listed it") {
					t.Errorf("a call of a tool no page listed: %v", env)
				}
				if tc.mode == "loop" {
					if got := textOf(t, c.call("greet", `{"name":"ada"}`)); got != "server ran greet ada" {
						t.Errorf("a listed tool: %q", got)
					}
				}
				if logs := c.logs.waitFor(tc.bound); !strings.Contains(logs, tc.bound) {
					t.Errorf("no warning with %s:\n%s", tc.bound, logs)
				}
				// Three listings at most between two changes (one over stdio),
				// each of 500 pages at most, or 64 KiB of pages (four times
				// the largest message).
				if n, most := lists(), map[string]int{"loop": 3 * 500, "endless": 3 * 12}[tc.mode]; n > most {
					t.Errorf("the server was asked for %d pages, want at most %d", n, most)
				}
			})
		}
	}
}

// A server that pages forever, slowly: the call waits for the proxy's
// listing no longer than the call's timeout, then is refused as never
// listed, not stalled.
func TestPinsListingEndsAtTheCallsDeadline(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			c, _ := pagedClient(t, transport, "slow", proxy.WithTimeout(300*time.Millisecond))
			env := envelopeOf(t, c.call("swap", `{}`))
			if env["error_type"] != "access_denied" {
				t.Errorf("a call of a tool no page listed in time: %v", env)
			}
		})
	}
}
