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
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
	"github.com/mcpguard/mcpguard/core/seal"
)

// stateChild is a stdio server whose tools ask for confirmation first
// (input_required, requestState "env=<environment>") and, on the retry,
// answer with the requestState they received.
func stateChild() {
	out := bufio.NewWriter(os.Stdout)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name         string            `json:"name"`
				Arguments    map[string]string `json:"arguments"`
				RequestState string            `json:"requestState"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || len(m.ID) == 0 {
			continue
		}
		var res string
		switch m.Method {
		case "initialize":
			res = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"state","version":"1"}}`
		case "tools/list":
			res = `{"tools":[{"name":"deploy","inputSchema":{"type":"object"}},{"name":"delete","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			if st := m.Params.RequestState; st != "" {
				b, _ := json.Marshal("done with " + st)
				res = `{"content":[{"type":"text","text":` + string(b) + `}]}`
			} else {
				b, _ := json.Marshal("env=" + m.Params.Arguments["environment"])
				res = `{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{"mode":"form","message":"sure?","requestedSchema":{"type":"object"}}}},"requestState":` + string(b) + `}`
				if len(os.Args) > 2 { // requestState spelled as os.Args[2] says (TestProxySealsEverySpelling)
					res = strings.Replace(res, `"requestState":`, os.Args[2], 1)
				}
			}
		default:
			res = `{}`
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, res)
		out.Flush()
	}
}

func startState(t *testing.T, opts ...proxy.Option) *session {
	t.Helper()
	return startCmd(t, []string{os.Args[0], "state-child"}, opts...)
}

func (s *session) stateCall(tool, env, state string) map[string]any {
	s.t.Helper()
	params := map[string]any{"name": tool, "arguments": map[string]any{"environment": env}}
	if state != "" {
		params["requestState"] = state
		params["inputResponses"] = map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{}}}
	}
	b, _ := json.Marshal(params)
	res, _ := s.request("tools/call", string(b))["result"].(map[string]any)
	if res == nil {
		s.t.Fatalf("no result")
	}
	return res
}

func (s *session) stateStart(tool, env string) string {
	s.t.Helper()
	res := s.stateCall(tool, env, "")
	st, _ := res["requestState"].(string)
	if res["resultType"] != "input_required" || st == "" {
		s.t.Fatalf("first call: %v", res)
	}
	return st
}

// upstreamGot returns what the upstream received as requestState, "" if
// the call did not reach it.
func upstreamGot(res map[string]any) string {
	b, _ := json.Marshal(res)
	text := string(b)
	if i := strings.Index(text, "done with "); i >= 0 && res["isError"] == nil {
		return strings.SplitN(text[i+len("done with "):], `"`, 2)[0]
	}
	return ""
}

func (s *session) expectStateRefused(res map[string]any, reason error) {
	s.t.Helper()
	b, _ := json.Marshal(res)
	wire := string(b)
	if res["isError"] != true || !strings.Contains(wire, seal.RefusedMessage) || !strings.Contains(wire, `validation_error`) {
		s.t.Errorf("the client got %s, want the refusal envelope", wire)
	}
	if strings.Contains(wire, "done with") || strings.Contains(wire, reason.Error()) {
		s.t.Errorf("the upstream ran, or the client learns the reason: %s", wire)
	}
	if logs := s.logs.waitFor(reason.Error()); !strings.Contains(logs, seal.LogMessage) || !strings.Contains(logs, reason.Error()) {
		s.t.Errorf("the log lacks %q", reason)
	}
}

func TestProxySealsRequestState(t *testing.T) {
	t.Parallel()
	s := startState(t)
	st := s.stateStart("deploy", "staging")
	if strings.Contains(st, "staging") {
		t.Fatalf("the client sees the plaintext: %s", st)
	}
	if got := upstreamGot(s.stateCall("deploy", "staging", st)); got != "env=staging" {
		t.Fatalf("the upstream received %q", got)
	}
	b := []byte(st)
	b[len(b)/2] ^= 0x20
	if b[len(b)/2] < 'A' {
		b[len(b)/2] = 'x'
	}
	s.expectStateRefused(s.stateCall("deploy", "staging", string(b)), seal.ErrTampered)
	s.expectStateRefused(s.stateCall("deploy", "staging", "env=production"), seal.ErrTampered)
	s.expectStateRefused(s.stateCall("delete", "staging", st), seal.ErrBinding)
	s.expectStateRefused(s.stateCall("deploy", "production", st), seal.ErrBinding)
	// A state that is not a string never reaches the upstream either.
	s.expectStateRefused(s.request("tools/call", `{"name":"deploy","arguments":{"environment":"staging"},"requestState":{"env":"production"}}`)["result"].(map[string]any), seal.ErrTampered)
	// Nor one spelled otherwise, which encoding/json would read.
	res := s.request("tools/call", `{"name":"deploy","arguments":{"environment":"staging"},"RequestState":"env=production"}`)
	if e, _ := res["error"].(map[string]any); fmt.Sprint(e["code"]) != "-32600" {
		t.Errorf("a requestState spelled otherwise was not refused with -32600: %v", res)
	}
}

// A server's requestState is sealed however it spells the name, where
// encoding/json, which clients read with, reads it as requestState: in
// another case, with the long s (U+017F) or the Kelvin sign, with an
// escape, or twice. The state the client reads opens on the retry.
func TestProxySealsEverySpelling(t *testing.T) {
	t.Parallel()
	for _, spelled := range []string{
		`"requeſtState":`, `"requestSt\u0061te":`, `"REQUESTSTATE":`, `"requestState":"env=staging","requeſtState":`,
		`"requeſtState":"env=staging","requestState":`,
	} {
		_, body := post(t, proxyFor(t, stateUpstreamSpelled(t, spelled)), callBody(1, "deploy", `{"environment":"staging"}`))
		if data := lastData(t, body); strings.Contains(body, "staging") || data["result"] == nil {
			t.Errorf("%s over HTTP the client reads %s", spelled, body)
		}
		s := startCmd(t, []string{os.Args[0], "state-child", spelled})
		s.send(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"deploy","arguments":{"environment":"staging"}}}`)
		var line []byte
		for line = s.read(); !strings.Contains(string(line), `"id":"a"`); line = s.read() {
		}
		if strings.Contains(string(line), "staging") {
			t.Errorf("%s the client reads the plaintext: %s", spelled, line)
			continue
		}
		var got struct {
			Result struct {
				RequestState string `json:"requestState"`
			} `json:"result"`
		}
		if err := json.Unmarshal(line, &got); err != nil || got.Result.RequestState == "" {
			t.Errorf("%s no requestState read (%v): %s", spelled, err, line)
			continue
		}
		if up := upstreamGot(s.stateCall("deploy", "staging", got.Result.RequestState)); up != "env=staging" {
			t.Errorf("%s the retry: the upstream received %q", spelled, up)
		}
	}
}

func TestProxyStateExpiresAndRotates(t *testing.T) {
	t.Parallel()
	k1 := "k1:" + strings.Repeat("A", 43)
	k2 := "k2:" + strings.Repeat("B", 43)
	ring := func(text string) *seal.KeyRing {
		r, err := seal.ParseKeyRing([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a := startState(t, proxy.WithStateKeys(ring(k1)))
	b := startState(t, proxy.WithStateKeys(ring(k2+"\n"+k1)))
	if got := upstreamGot(b.stateCall("deploy", "staging", a.stateStart("deploy", "staging"))); got != "env=staging" {
		t.Fatalf("another replica, rotated, received %q", got)
	}
	a.expectStateRefused(a.stateCall("deploy", "staging", b.stateStart("deploy", "staging")), seal.ErrUnknownKey)
	// Without a ring, each proxy's key has an id of its own: the log says
	// the key is not held, and points to the ring.
	e, f := startState(t), startState(t)
	e.expectStateRefused(e.stateCall("deploy", "staging", f.stateStart("deploy", "staging")), seal.ErrUnknownKey)
	if logs := e.logs.String(); !strings.Contains(logs, "docs/protocol-2026-07-28.md#keys") {
		t.Errorf("the log does not point to the key ring:\n%s", logs)
	}

	var now atomic.Int64
	now.Store(1_800_000_000)
	c := startState(t, proxy.WithStateKeys(ring(k1), seal.WithTTL(time.Minute), seal.WithClock(func() time.Time { return time.Unix(now.Load(), 0) })))
	st := c.stateStart("deploy", "staging")
	now.Add(120)
	c.expectStateRefused(c.stateCall("deploy", "staging", st), seal.ErrExpired)
}

func TestProxyWithoutStateSealing(t *testing.T) {
	t.Parallel()
	s := startState(t, proxy.WithoutStateSealing())
	if st := s.stateStart("deploy", "staging"); st != "env=staging" {
		t.Fatalf("state %q", st)
	}
	if got := upstreamGot(s.stateCall("deploy", "staging", "env=production")); got != "env=production" {
		t.Fatalf("received %q", got)
	}
}

// stateUpstream is stateChild over streamable HTTP, answering in JSON.
func stateUpstream(t *testing.T) string { return stateUpstreamSpelled(t, `"requestState":`) }

// stateUpstreamSpelled is stateUpstream writing requestState as spelled.
func stateUpstreamSpelled(t *testing.T, spelled string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name         string            `json:"name"`
				Arguments    map[string]string `json:"arguments"`
				RequestState string            `json:"requestState"`
			} `json:"params"`
		}
		b, _ := io.ReadAll(r.Body)
		if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		res := `{}`
		switch m.Method {
		case "tools/list":
			res = `{"tools":[{"name":"deploy","inputSchema":{"type":"object"}},{"name":"delete","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			if st := m.Params.RequestState; st != "" {
				b, _ := json.Marshal("done with " + st)
				res = `{"content":[{"type":"text","text":` + string(b) + `}]}`
			} else {
				b, _ := json.Marshal("env=" + m.Params.Arguments["environment"])
				res = `{"resultType":"input_required","inputRequests":{},` + spelled + string(b) + `}`
			}
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, res)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestHTTPProxySealsRequestState(t *testing.T) {
	t.Parallel()
	url := proxyFor(t, stateUpstream(t))
	call := func(tool, env, state string) map[string]any {
		t.Helper()
		params := map[string]any{"name": tool, "arguments": map[string]any{"environment": env}}
		if state != "" {
			params["requestState"] = state
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
		_, body := post(t, url, string(b))
		res, _ := lastData(t, body)["result"].(map[string]any)
		return res
	}
	st, _ := call("deploy", "staging", "")["requestState"].(string)
	if st == "" || strings.Contains(st, "staging") {
		t.Fatalf("the client got the state %q", st)
	}
	if got := upstreamGot(call("deploy", "staging", st)); got != "env=staging" {
		t.Fatalf("the upstream received %q", got)
	}
	for _, res := range []map[string]any{call("deploy", "production", st), call("delete", "staging", st), call("deploy", "staging", "env=production")} {
		if b, _ := json.Marshal(res); res["isError"] != true || !strings.Contains(string(b), seal.RefusedMessage) {
			t.Errorf("the client got %s, want the refusal", b)
		}
	}
}
