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
	"github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/core/seal"
)

// shedCall is a 2026-07-28 client's call of the child's received tool
// with {"text":"x"}, echoing state when not "", with extra params.
func shedCall(id, state, extra string) string {
	if state != "" {
		b, _ := json.Marshal(state)
		extra += `,"requestState":` + string(b)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"received","arguments":{"text":"x"},%s%s}}`, id, modernMeta, extra)
}

// shedState returns the requestState of m when m is a load-shedding
// answer as the proxy writes it (input_required, "inputRequests":{},
// the state, nothing else), "" when m is another answer.
func shedState(t *testing.T, m map[string]any) string {
	t.Helper()
	res, _ := m["result"].(map[string]any)
	if res == nil || res["resultType"] != "input_required" {
		return ""
	}
	st, _ := res["requestState"].(string)
	if ir, ok := res["inputRequests"].(map[string]any); !ok || len(ir) != 0 || st == "" || len(res) != 3 {
		t.Fatalf("not a load-shedding answer: %v", m)
	}
	return st
}

// fillHolds sends a call of nap, which takes the one concurrency slot
// for ms, then n calls of received, of which the proxy holds at most
// limit.HoldPerCaller; it returns the state of one of the calls it shed.
func fillHolds(t *testing.T, s *session, ms, n int) string {
	t.Helper()
	s.send(modernCall("nap", "nap", `{"ms":`+strconv.Itoa(ms)+`}`, true))
	for i := range n {
		s.send(shedCall("f"+strconv.Itoa(i), "", ""))
	}
	for i := 0; ; i++ {
		if i == n-limit.HoldPerCaller {
			t.Fatalf("no call beyond the hold bound was shed")
		}
		var m map[string]any
		if err := json.Unmarshal(s.read(), &m); err != nil {
			t.Fatal(err)
		}
		if st := shedState(t, m); st != "" {
			return st
		}
		if res, _ := m["result"].(map[string]any); res["isError"] != true {
			t.Fatalf("a call beyond the bound was answered otherwise: %v", m)
		}
	}
}

// TestProxyShedStateCannotBeReplayedPastTheLimit: with the one slot busy
// and the hold bound full, a 2026-07-28 client's call is answered with a
// load-shedding input_required and a sealed state; an edited state, or
// one echoed with other arguments, is refused as every state is; the
// re-send is shed again, the third round is the limit's refusal, and a
// call carrying inputResponses is never shed. Once the slot frees, the
// re-send runs, and the server never reads the proxy's state.
func TestProxyShedStateCannotBeReplayedPastTheLimit(t *testing.T) {
	s := start(t, proxy.WithConcurrency(1, 0))
	first := fillHolds(t, s, 2500, limit.HoldPerCaller+12)

	// One base64url letter for another, so the edited state is still a
	// JSON string (a flip by XOR once made "_" a backslash: the message
	// was unreadable, not a state refused).
	edited := []byte(first)
	if edited[len(edited)/2] == 'A' {
		edited[len(edited)/2] = 'B'
	} else {
		edited[len(edited)/2] = 'A'
	}
	s.expectStateRefused(s.request("tools/call", `{"name":"received","arguments":{"text":"x"},`+modernMeta+`,"requestState":"`+string(edited)+`"}`)["result"].(map[string]any), seal.ErrTampered)
	s.expectStateRefused(s.request("tools/call", `{"name":"received","arguments":{"text":"y"},`+modernMeta+`,"requestState":"`+first+`"}`)["result"].(map[string]any), seal.ErrBinding)

	s.send(shedCall("r1", first, ""))
	second := shedState(t, s.await("r1"))
	if second == "" || second == first {
		t.Fatalf("the re-send was not shed again while the bound is full")
	}
	s.send(shedCall("r2", second, ""))
	if env := envelopeOf(t, s.await("r2")); env["retry_after_ms"] == nil {
		t.Errorf("a third round was not the limit's refusal: %v", env)
	}
	s.send(shedCall("answers", "", `,"inputResponses":{"confirm":{"action":"accept","content":{}}}`))
	if env := envelopeOf(t, s.await("answers")); env["retry_after_ms"] == nil {
		t.Errorf("a call carrying inputResponses was not refused as before: %v", env)
	}

	if got := textOf(t, s.await("nap")); got != "rested" {
		t.Fatalf("nap: %q", got)
	}
	for i := range limit.HoldPerCaller + 1 { // the held calls, and one round of the replay, until one runs
		s.send(shedCall("after"+strconv.Itoa(i), first, ""))
		m := s.await("after" + strconv.Itoa(i))
		if shedState(t, m) != "" {
			continue
		}
		if res := m["result"].(map[string]any); res["isError"] == true {
			continue // the slot was busy with held calls past the cap
		}
		if got := textOf(t, m); got != `{"text":"x"}` {
			t.Errorf("the server read %q: the proxy's shed state reached it", got)
		}
		return
	}
	t.Errorf("the re-send never ran once the slot freed")
}

// TestProxyShedReplaysNeverRunFasterThanTheRate: a shed state replayed
// 60 times at once, while the calls that filled the hold bound run at
// the rate, never makes the server run calls faster than the rate: each
// replay is held, shed again or refused by the same limit.
func TestProxyShedReplaysNeverRunFasterThanTheRate(t *testing.T) {
	const r, b, fill, replays = 50, 1, 1 + limit.HoldPerCaller + 20, 60
	s := start(t, proxy.WithRate(r, b))
	for i := range fill {
		s.send(stampCall("c"+strconv.Itoa(i), true))
	}
	var ran []int64
	state := ""
	read := func() {
		var m map[string]any
		if err := json.Unmarshal(s.read(), &m); err != nil {
			t.Fatal(err)
		}
		if st := shedState(t, m); st != "" {
			state = st
			return
		}
		if res := m["result"].(map[string]any); res["isError"] == true {
			return
		}
		at, err := strconv.ParseInt(textOf(t, m), 10, 64)
		if err != nil {
			t.Fatalf("not a stamp: %v", m)
		}
		ran = append(ran, at)
	}
	answered := 0
	for ; state == "" && answered < fill; answered++ {
		read()
	}
	if state == "" {
		t.Fatalf("no call was shed")
	}
	st, _ := json.Marshal(state)
	for i := range replays {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"re%d","method":"tools/call","params":{"name":"stamp","arguments":{},%s,"requestState":%s}}`, i, modernMeta, st))
	}
	for ; answered < fill+replays; answered++ {
		read()
	}
	t.Logf("%d calls and %d replays: %d runs, most in a second %d", fill, replays, len(ran), mostInASecond(ran))
	if len(ran) < limit.HoldPerCaller {
		t.Errorf("%d runs: the held calls did not run", len(ran))
	}
	if most := mostInASecond(ran); most > mostAllowed(r, b) {
		t.Errorf("%d runs in one second: a replayed shed state ran faster than the rate", most)
	}
}

// TestProxyShedsOverHTTP: over streamable HTTP, with the one slot busy
// and the hold bound full, the calls beyond are answered, each on its
// POST, with the load-shedding result under the client's id.
func TestProxyShedsOverHTTP(t *testing.T) {
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m childMsg
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &m) != nil || len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		res := `{}`
		switch m.Method {
		case "tools/list":
			res = `{"tools":[{"name":"nap","inputSchema":{"type":"object"}},{"name":"received","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			if m.Params.Name == "nap" {
				<-release
			}
			res = `{"content":[{"type":"text","text":"ok"}]}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, res)
	}))
	t.Cleanup(up.Close)
	url := proxyFor(t, up.URL, proxy.WithConcurrency(1, 0))
	napped := make(chan bool, 1)
	go func() { napped <- succeeds(url, modernCall("nap", "nap", `{}`, true)) }()
	time.Sleep(200 * time.Millisecond) // the nap takes the slot
	const n = limit.HoldPerCaller + 12
	var mu sync.Mutex
	answers := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			a := postRaw(url, shedCall("h"+strconv.Itoa(i), "", ""))
			mu.Lock()
			answers[i] = a
			mu.Unlock()
		})
	}
	shed := 0
	for deadline := time.Now().Add(10 * time.Second); shed == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		shed = 0
		for i := range n {
			mu.Lock()
			a := answers[i]
			mu.Unlock()
			if strings.Contains(a, "input_required") {
				shed++
				var m map[string]any
				if err := json.Unmarshal([]byte(a), &m); err != nil || m["id"] != "h"+strconv.Itoa(i) || shedState(t, m) == "" {
					t.Errorf("not a load-shedding answer under the client's id: %s", a)
				}
			}
		}
	}
	close(release)
	wg.Wait()
	<-napped
	if shed == 0 {
		t.Fatalf("no call beyond the hold bound was shed over HTTP")
	}
}

// postRaw posts call to url and returns the JSON-RPC message it was
// answered with ("" on failure).
func postRaw(url, call string) string {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(call))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	msg := string(body)
	if i := strings.LastIndex(msg, "data: "); i >= 0 {
		msg = strings.TrimSpace(strings.SplitN(msg[i+6:], "\n", 2)[0])
	}
	return msg
}
