package proxy_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpguard/mcpguard/core/seal"
)

// A sealed round opens on the retry of the same call with its arguments
// spelled otherwise (members reordered, spaced, a character escaped): the
// binding names them by core/wire's canonical digest, the one the
// repeated-failure guard names "the same arguments" by. Other arguments
// do not open it.
func TestProxySealedRoundOpensForTheSameArgumentsSpelledOtherwise(t *testing.T) {
	t.Parallel()
	s := startState(t)
	first, _ := s.request("tools/call", `{"name":"deploy","arguments":{"environment":"staging","region":"eu"}}`)["result"].(map[string]any)
	st, _ := first["requestState"].(string)
	if st == "" {
		t.Fatalf("first call: %v", first)
	}
	state, _ := json.Marshal(st)
	retry := func(args string) map[string]any {
		res, _ := s.request("tools/call", `{"name":"deploy","arguments":`+args+`,"requestState":`+string(state)+
			`,"inputResponses":{"confirm":{"action":"accept","content":{}}}}`)["result"].(map[string]any)
		return res
	}
	s.expectStateRefused(retry(`{"environment":"staging","region":"us"}`), seal.ErrBinding)
	if got := upstreamGot(retry(` { "region" : "e\u0075" , "environment":"staging" } `)); got != "env=staging" {
		t.Errorf("the same arguments spelled otherwise: the upstream received %q", got)
	}
}
