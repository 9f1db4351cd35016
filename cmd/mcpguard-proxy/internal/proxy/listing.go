package proxy

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// The proxy lists the server's tools itself (stdio's and HTTP's
// listTools) before a call it cannot check otherwise: no listing was read
// since the tools last changed, or the call's tool is not among those
// listed and the last page was not read. It reads every page, following
// nextCursor, within bounds: a server whose cursor loops, or that pages
// forever, costs a call at most the wait for the listing (listWait, or
// the timeout if shorter), maxOwnPages pages and ownListMessages times
// the message bound in bytes, and the tools it lists past that are not
// learned.

// maxOwnPages bounds the pages of one listing of the proxy's own.
const maxOwnPages = 500

// ownListMessages bounds the bytes of one listing of the proxy's own, as
// a number of the largest messages (WithMaxMessage).
const ownListMessages = 4

// ownListing is one listing of the proxy's own in progress.
type ownListing struct {
	gen    uint64 // the generation of the table it learns into
	cursor string // of the page to ask for next; "": the first
	pages  int    // read so far, and bytes
	bytes  int
}

// unseen reports whether a call of the tool name is one the proxy lists
// the tools for first: none were learned since they last changed, or
// name is not among them and the last page was not read.
func (t *toolTable) unseen(name string) bool {
	return !t.learned() || (!t.complete.Load() && t.get(name) == nil)
}

// ownPage learns result, a page of the listing l, into t, and reports
// whether to ask for another: the page l.cursor now names. A page that
// comes after the server's tools changed starts the listing again from
// its first page, in the generation of t now; past a bound the listing
// stops, with a warning.
func (g *Guard) ownPage(t *toolTable, l *ownListing, result []byte) bool {
	l.pages++
	l.bytes += len(result)
	_, next, stale := g.learnPage(t, l.gen, result)
	if stale {
		l.gen, next = t.gen.Load(), ""
	} else if next == "" {
		return false // the last page
	}
	l.cursor = next
	bound := ""
	switch {
	case l.pages >= maxOwnPages:
		bound = "pages"
	case l.bytes >= ownListMessages*g.o.maxMessage:
		bound = "bytes"
	default:
		return true
	}
	safe.Log(context.Background(), g.o.logger, slog.LevelWarn,
		"mcpguard-proxy: its own tools/list stopped before the last page: a call of a tool it did not read is refused with pins, unchecked without",
		slog.String("bound", bound), slog.Int("pages", l.pages), slog.Int(logkey.Bytes, l.bytes))
	return false
}

// ownListRequest is the proxy's own tools/list request for the page
// cursor names ("": the first), under the minted id up, on behalf of the
// client whose request's params are params: it carries what that
// request's _meta says of the client (clientMeta).
func ownListRequest(up []byte, cursor string, params []byte) []byte {
	b := append(append([]byte(`{"jsonrpc":"2.0","id":`), up...), `,"method":"tools/list","params":{`...)
	if meta := clientMeta(params); meta != nil {
		b = append(append(b, `"_meta":`...), meta...)
		if cursor != "" {
			b = append(b, ',')
		}
	}
	if cursor != "" {
		q, _ := json.Marshal(cursor)
		b = append(append(b, `"cursor":`...), q...)
	}
	return append(b, "}}"...)
}

// clientKeys are the members of a request's _meta that describe its
// client rather than the request: MCP 2026-07-28 has no session, so every
// request names its protocol version (which a server requires, and checks
// against the Mcp-Protocol-Version header), and its client's name and
// capabilities.
var clientKeys = []string{
	metaProtocolVersion,
	"io.modelcontextprotocol/clientInfo",
	"io.modelcontextprotocol/clientCapabilities",
}

// clientMeta is the _meta object of the proxy's own request on behalf of
// the client whose request's params are params: the clientKeys members of
// that request's _meta, as the strict reader admitted them; nil when it
// has none.
func clientMeta(params []byte) []byte {
	var out []byte
	_ = rpc.Walk(params, false, func(name []byte, v rpc.Span, _ int) error {
		if string(name) != "_meta" || len(v) == 0 || v[0] != '{' {
			return nil
		}
		out = nil // the last _meta, as the upstream reads it
		return rpc.Walk(v, false, func(name []byte, v rpc.Span, _ int) error {
			if slices.Contains(clientKeys, string(name)) {
				q, _ := json.Marshal(string(name))
				if out == nil {
					out = append(out, '{')
				} else {
					out = append(out, ',')
				}
				out = append(append(append(out, q...), ':'), v...)
			}
			return nil
		})
	})
	if out == nil {
		return nil
	}
	return append(out, '}')
}
