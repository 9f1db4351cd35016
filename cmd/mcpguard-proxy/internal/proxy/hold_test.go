package proxy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// modernMeta is the _meta every request of a 2026-07-28 client carries
// (mcp-go v1.2.1 client/protocol.go applyRequestMeta, go-sdk v1.8.0): the
// servers behind the proxy read the client's protocol version from it.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// stampCall is a call of the child's stamp tool, from a 2026-07-28
// client when modern.
func stampCall(id string, modern bool) string {
	meta := ""
	if modern {
		meta = "," + modernMeta
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"stamp","arguments":{}%s}}`, id, meta)
}

// mostAllowed is the most runs mostInASecond may find behind a token
// bucket of rate r and burst b: b + r at the bucket, and the runs of
// r/10 seconds more, for the spread of the delays between the limit
// admitting a call and its handler stamping it (a scheduler on a machine
// busy with other tests: a run admitted early and stamped late moves
// into the next second's window). A limit that let calls through that it
// should shed or hold would show several times that.
func mostAllowed(r, b int) int { return b + r + r/10 + 1 }

// mostInASecond is the most of the times at (Unix nanoseconds) within
// any window of one second: a token bucket of rate r and burst b lets at
// most b + r through.
func mostInASecond(at []int64) int {
	most := 0
	for _, start := range at {
		n := 0
		for _, t := range at {
			if t >= start && t-start < int64(time.Second) {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

// burstAnswers reads the answers to the calls "c0".."c(n-1)" and counts
// the refusals; ran are the child's stamps of the calls it ran.
func burstAnswers(t *testing.T, s *session, n int) (refused int, ran []int64) {
	t.Helper()
	for range n {
		var m map[string]any
		if err := json.Unmarshal(s.read(), &m); err != nil {
			t.Fatal(err)
		}
		res, _ := m["result"].(map[string]any)
		if res == nil {
			t.Fatalf("not a result: %v", m)
		}
		if res["isError"] == true {
			refused++
			continue
		}
		at, err := strconv.ParseInt(textOf(t, m), 10, 64)
		if err != nil {
			t.Fatalf("not a stamp: %v", m)
		}
		ran = append(ran, at)
	}
	return refused, ran
}

// TestRateHoldsABurstOfAModernClientOverStdio: 100 calls at twice the
// rate (50 a second, bursts of 5) from a 2026-07-28 client: with
// WithHoldCap(0), the behaviour before, about half are refused, a model
// turn each; by default none is, and the server never runs calls faster
// than the rate. A 2025-11-25 client's calls are refused as before.
func TestRateHoldsABurstOfAModernClientOverStdio(t *testing.T) {
	const r, b, n = 50, 5, 100
	for _, tc := range []struct {
		name   string
		modern bool
		opts   []proxy.Option
	}{
		{"modern, no hold", true, []proxy.Option{proxy.WithHoldCap(0)}},
		{"modern", true, nil},
		{"2025-11-25", false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t, append([]proxy.Option{proxy.WithRate(r, b)}, tc.opts...)...)
			sent := make(chan error, 1)
			go func() { // the proxy's answers are read meanwhile: its pipes hold few
				tick := time.NewTicker(time.Second / (2 * r))
				defer tick.Stop()
				for i := range n {
					if i > 0 {
						<-tick.C
					}
					if _, err := io.WriteString(s.in, stampCall("c"+strconv.Itoa(i), tc.modern)+"\n"); err != nil {
						sent <- err
						return
					}
				}
				sent <- nil
			}()
			refused, ran := burstAnswers(t, s, n)
			if err := <-sent; err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d of %d refused; most runs in a second %d", tc.name, refused, n, mostInASecond(ran))
			if tc.modern && tc.opts == nil {
				if refused > n/50 {
					t.Errorf("%d of %d refused: the proxy could have held them", refused, n)
				}
			} else if refused < n/4 {
				t.Errorf("%d of %d refused: want about half, as without holding", refused, n)
			}
			if most := mostInASecond(ran); most > mostAllowed(r, b) {
				t.Errorf("%d runs in one second: faster than the rate", most)
			}
		})
	}
}

// TestRateHoldsABurstOfAModernClientOverHTTP is the same burst over
// streamable HTTP, each call a POST of its own.
func TestRateHoldsABurstOfAModernClientOverHTTP(t *testing.T) {
	const r, b, n = 50, 5, 100
	for _, tc := range []struct {
		name   string
		modern bool
		opts   []proxy.Option
	}{
		{"modern, no hold", true, []proxy.Option{proxy.WithHoldCap(0)}},
		{"modern", true, nil},
		{"2025-11-25", false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var ran []int64
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var m childMsg
				body, _ := io.ReadAll(r.Body)
				if json.Unmarshal(body, &m) != nil || len(m.ID) == 0 {
					w.WriteHeader(http.StatusAccepted)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				res := `{}`
				switch m.Method {
				case "tools/list":
					res = `{"tools":[{"name":"stamp","inputSchema":{"type":"object"}}]}`
				case "tools/call":
					mu.Lock()
					ran = append(ran, time.Now().UnixNano())
					mu.Unlock()
					res = `{"content":[{"type":"text","text":"ok"}]}`
				}
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, res)
			}))
			t.Cleanup(up.Close)
			url := proxyFor(t, up.URL, append([]proxy.Option{proxy.WithRate(r, b)}, tc.opts...)...)
			var wg sync.WaitGroup
			var refusedMu sync.Mutex
			refused := 0
			tick := time.NewTicker(time.Second / (2 * r))
			for i := range n {
				if i > 0 {
					<-tick.C
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					if !succeeds(url, stampCall("c"+strconv.Itoa(i), tc.modern)) {
						refusedMu.Lock()
						refused++
						refusedMu.Unlock()
					}
				}()
			}
			wg.Wait()
			tick.Stop()
			mu.Lock()
			defer mu.Unlock()
			t.Logf("%s: %d of %d refused; most runs in a second %d", tc.name, refused, n, mostInASecond(ran))
			if tc.modern && tc.opts == nil {
				if refused > n/50 {
					t.Errorf("%d of %d refused: the proxy could have held them", refused, n)
				}
			} else if refused < n/4 {
				t.Errorf("%d of %d refused: want about half, as without holding", refused, n)
			}
			if most := mostInASecond(ran); most > mostAllowed(r, b) {
				t.Errorf("%d runs in one second: faster than the rate", most)
			}
		})
	}
}

// succeeds posts a tool call to url, and reports whether its answer was
// a result that is no error (a refusal is one).
func succeeds(url, call string) bool {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(call))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	msg := string(body)
	if i := strings.LastIndex(msg, "data: "); i >= 0 {
		msg = strings.TrimSpace(strings.SplitN(msg[i+6:], "\n", 2)[0])
	}
	var m struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	return json.Unmarshal([]byte(msg), &m) == nil && m.Result != nil && !m.Result.IsError
}

// modernCall is a call of tool with args from a 2026-07-28 client, or
// from a 2025-11-25 one.
func modernCall(id, tool, args string, modern bool) string {
	meta := ""
	if modern {
		meta = "," + modernMeta
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":%q,"arguments":%s%s}}`, id, tool, args, meta)
}

// TestConcurrencyHoldsAModernClientsCalls: with one slot and no wait,
// a 2026-07-28 client's calls while the slot is busy are held until it
// frees, and all are answered with their results; a 2025-11-25 client's
// call is refused at once, as before.
func TestConcurrencyHoldsAModernClientsCalls(t *testing.T) {
	for _, modern := range []bool{true, false} {
		t.Run(fmt.Sprint("modern=", modern), func(t *testing.T) {
			s := start(t, proxy.WithConcurrency(1, 0))
			s.send(modernCall("nap", "nap", `{"ms":300}`, modern))
			for i := range 3 {
				s.send(modernCall("e"+strconv.Itoa(i), "echo", `{"text":"x"}`, modern))
			}
			answers := map[string]map[string]any{}
			for range 4 {
				var m map[string]any
				if err := json.Unmarshal(s.read(), &m); err != nil {
					t.Fatal(err)
				}
				answers[fmt.Sprint(m["id"])] = m
			}
			if got := textOf(t, answers["nap"]); got != "rested" {
				t.Fatalf("nap: %q", got)
			}
			for i := range 3 {
				m := answers["e"+strconv.Itoa(i)]
				res := m["result"].(map[string]any)
				if modern && res["isError"] == true {
					t.Errorf("call %d of a modern client refused: %v", i, m)
				}
				if !modern && envelopeOf(t, m)["retry_after_ms"] == nil {
					t.Errorf("call %d of an older client: %v", i, m)
				}
			}
		})
	}
}

// TestAFloodOfHeldCallsIsBounded: 200 calls at once of a 2026-07-28
// client against 10 calls a second: only those whose token is within
// the hold cap (3 s) are held, the others are refused at once; every
// call is answered, none runs faster than the rate, and no goroutine
// is left (start's cleanup checks).
func TestAFloodOfHeldCallsIsBounded(t *testing.T) {
	const r, n = 10, 200
	s := start(t, proxy.WithRate(r, 1))
	sent := make(chan error, 1)
	go func() {
		for i := range n {
			if _, err := io.WriteString(s.in, stampCall("c"+strconv.Itoa(i), true)+"\n"); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	}()
	refused, ran := burstAnswers(t, s, n)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of %d refused, %d ran; most in a second %d", refused, n, len(ran), mostInASecond(ran))
	if len(ran) > 1+3*r+1 {
		t.Errorf("%d calls ran: more than the hold cap's worth of tokens were held", len(ran))
	}
	if most := mostInASecond(ran); most > mostAllowed(r, 1) {
		t.Errorf("%d runs in one second: faster than the rate", most)
	}
}

// TestNoCallIsHeldPastItsTimeout: a token further away than the call's
// timeout is not waited for: the call gets its refusal at once, not a
// timeout once the wait is over.
func TestNoCallIsHeldPastItsTimeout(t *testing.T) {
	s := start(t, proxy.WithRate(1, 1), proxy.WithTimeout(500*time.Millisecond))
	if got := textOf(t, s.request("tools/call", `{"name":"echo","arguments":{"text":"1"},`+modernMeta+`}`)); got != "1" {
		t.Fatalf("first: %q", got)
	}
	env := envelopeOf(t, s.request("tools/call", `{"name":"echo","arguments":{"text":"2"},`+modernMeta+`}`))
	if env["retry_after_ms"] == nil || !strings.Contains(env["message"].(string), "Rate limit") {
		t.Fatalf("the call past its timeout: %v", env)
	}
}
