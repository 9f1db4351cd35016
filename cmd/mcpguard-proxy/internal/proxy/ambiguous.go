package proxy

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"

	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// This file refuses the client messages that the proxy and the upstream
// may read differently. The proxy reads keys exactly, as JSON-RPC says,
// and the last of duplicates wins; but a server on encoding/json (mcp-go)
// matches keys case-insensitively, and other parsers keep the first of
// duplicates or fail. A message such as
// {"method":"ping","Method":"tools/call",...} would be ping to the proxy
// and a tool call to the server: every guarantee evaded. So a client
// message with a member whose key folds to one the proxy reads but is not
// it exactly, or that repeats one, is refused before the upstream sees it.

// headNames are the members of a message the proxy reads, and callNames
// those of a tools/call's params. Bit i of a mask is name i.
var (
	headNames = [][]byte{[]byte("jsonrpc"), []byte("id"), []byte("method"), []byte("params"), []byte("result"), []byte("error")}
	callNames = [][]byte{[]byte("name"), []byte("arguments"), []byte("_meta")}
)

// idBit is the bit of "id" in headNames' masks.
const idBit = 1 << 1

// ambiguity is what makes a message ambiguous: the names (as bits of a
// mask of headNames or callNames) with a case variant or a duplicate.
type ambiguity struct {
	head, call uint16
}

func (a ambiguity) none() bool { return a.head == 0 && a.call == 0 }

// ambiguous reports what makes a parsed client message ambiguous: parse
// noted its keys in the pass it reads the head in; a tools/call's params
// take one more pass over their members. An ordinary message allocates
// nothing; only a key written with escapes is decoded.
func ambiguous(m *message) ambiguity {
	a := ambiguity{head: m.keys.bad}
	if m.Method == "tools/call" {
		a.call = ambiguousMembers(m.Params, callNames)
	}
	return a
}

// ambiguousMembers returns the mask of names that obj's keys repeat or
// write with another case. obj that is not an object has none.
func ambiguousMembers(obj []byte, names [][]byte) uint16 {
	var ks keySet
	it, ok := newMembers(obj)
	for ok {
		k, _, more := it.next()
		if !more {
			break
		}
		ks.add(k, names)
	}
	return ks.bad
}

// keySet notes, key by key, which names an object's keys match as
// encoding/json would match them (bytes.EqualFold, after decoding
// escapes): bad has the names matched in another case or more than once.
type keySet struct{ seen, bad uint16 }

// add notes the raw key k.
func (ks *keySet) add(k []byte, names [][]byte) {
	if bytes.IndexByte(k, '\\') >= 0 {
		s, ok := unescape(append(append([]byte{'"'}, k...), '"'))
		if !ok {
			return
		}
		k = []byte(s)
	}
	if len(k) == 0 {
		return
	}
	for i, n := range names {
		// A fold of an ASCII letter takes 1 to 3 bytes; only s and k have
		// folds outside ASCII (ſ, K), and no name starts with either, so a
		// match's first byte is the name's in some case.
		if len(k) < len(n) || len(k) > 3*len(n) || k[0]|0x20 != n[0]|0x20 || !bytes.EqualFold(k, n) {
			continue
		}
		bit := uint16(1) << i
		if !bytes.Equal(k, n) || ks.seen&bit != 0 {
			ks.bad |= bit
		}
		ks.seen |= bit
	}
}

// refusal is the answer to an ambiguous message: -32600 with its id when
// the id itself is not in doubt, else null.
func (a ambiguity) refusal(m *message) []byte {
	var id []byte
	if a.head&idBit == 0 && hasID(m.ID) {
		id = m.ID
	}
	return rpcError(id, -32600, "invalid request: "+a.reason()+
		"; send each member once, its key in lower case as MCP spells it")
}

// reason names what is ambiguous, from the proxy's fixed vocabulary
// (never the client's text).
func (a ambiguity) reason() string {
	var b []byte
	add := func(mask uint16, names [][]byte, in string) {
		for i, n := range names {
			if mask&(1<<i) == 0 {
				continue
			}
			if len(b) > 0 {
				b = append(b, ", "...)
			}
			b = append(append(append(append(b, '"'), n...), '"'), in...)
		}
	}
	add(a.head, headNames, "")
	add(a.call, callNames, " in params")
	return "the message repeats a member, or writes its key in another case, that a server may read differently: " + string(b)
}

// refuseAmbiguous answers and logs an ambiguous client message on stdio,
// reporting whether it did; the message must not reach the child.
func (s *Stdio) refuseAmbiguous(ctx context.Context, line []byte, m *message) bool {
	a := ambiguous(m)
	if a.none() {
		return false
	}
	logAmbiguous(ctx, s.g.o.logger, m, a)
	s.send(a.refusal(m))
	return true
}

// refuseHTTP answers a POST the proxy must not forward: a JSON-RPC batch,
// which MCP 2025-06-18 removed and which the proxy would pass through
// unread, or an ambiguous message. It reports whether it answered. The
// answer is HTTP 400 with a JSON-RPC error body, as the TypeScript SDK's
// streamable HTTP server answers an invalid message (go-sdk's answers a
// batch on 2025-06-18 with 400 too, in plain text).
func (h *HTTP) refuseHTTP(w http.ResponseWriter, r *http.Request, body []byte, m *message, err error) bool {
	if err != nil {
		if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
			safe.Log(r.Context(), h.g.o.logger, slog.LevelWarn, "mcpguard-proxy: refused a JSON-RPC batch",
				slog.Int(logkey.Bytes, len(body)))
			writeJSON(w, http.StatusBadRequest, rpcError(nil, -32600, batchRefusal))
			return true
		}
		return false
	}
	a := ambiguous(m)
	if a.none() {
		return false
	}
	logAmbiguous(r.Context(), h.g.o.logger, m, a)
	writeJSON(w, http.StatusBadRequest, a.refusal(m))
	return true
}

// batchRefusal is the message of the error that answers a JSON-RPC batch.
const batchRefusal = "JSON-RPC batches are not supported: send one message per request"

func logAmbiguous(ctx context.Context, logger *slog.Logger, m *message, a ambiguity) {
	safe.Log(ctx, logger, slog.LevelWarn, "mcpguard-proxy: refused an ambiguous client message",
		slog.String(logkey.Method, m.Method), slog.String(logkey.RequestID, safe.Value(string(m.ID))),
		slog.String(logkey.Error, a.reason()))
}
