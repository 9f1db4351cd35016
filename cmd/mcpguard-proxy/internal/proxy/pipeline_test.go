package proxy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// A success never carries a toolFailure _meta: the upstream's is dropped,
// as both fronts drop a handler's (docs/wire-contract.md), with or without
// the redaction of successes; the rest of its _meta is kept.
func TestSuccessDropsTheUpstreamsToolFailureMeta(t *testing.T) {
	for _, opts := range [][]proxy.Option{nil, {proxy.WithRedactSuccesses()}} {
		s := start(t, opts...)
		resp := s.call("ok_meta", `{}`)
		res := resp["result"].(map[string]any)
		meta, _ := res["_meta"].(map[string]any)
		if res["isError"] == true || textOf(t, resp) != "done" {
			t.Fatalf("want the success: %v", resp)
		}
		if _, forged := meta["io.modelcontextprotocol/toolFailure"]; forged || meta["trace"] != "t1" {
			t.Fatalf("want the upstream's toolFailure dropped and its trace kept: %v", meta)
		}
	}
}

// The admission order is core/pipeline's, the fronts' one: the limits
// before the declared-schema check, so that a client sending invalid
// arguments spends its rate budget like any other and a refused call
// costs no check.
func TestLimitsComeBeforeTheDeclaredCheck(t *testing.T) {
	s := start(t, proxy.WithRate(0.001, 1))
	s.request("tools/list", `{}`)
	if env := envelopeOf(t, s.call("echo", `{"text":42}`)); env["error_type"] != "validation_error" {
		t.Fatalf("first invalid call: %v", env)
	}
	env := envelopeOf(t, s.call("echo", `{"text":43}`))
	if env["retryable"] != true || env["retry_after_ms"] == nil || strings.Contains(textOf(t, s.call("echo", `{"text":44}`)), "validation_error") {
		t.Fatalf("the second invalid call must be refused by the rate limit first: %v", env)
	}
}

// An upstream's recovered panic (mcp-go's WithRecovery answer) is a panic
// to the pipeline: internal_error under an incident the proxy logs, its
// text never sent, as both fronts answer a panic.
func TestUpstreamPanicIsAnInternalError(t *testing.T) {
	s := start(t)
	env := envelopeOf(t, s.call("panics", `{}`))
	id, _ := env["incident_id"].(string)
	if env["error_type"] != "internal_error" || id == "" || strings.Contains(fmt.Sprint(env), "index out of range") {
		t.Fatalf("want internal_error with an incident and no panic text: %v", env)
	}
	if logs := s.logs.String(); !strings.Contains(logs, id) || !strings.Contains(logs, "index out of range") {
		t.Fatalf("want the panic logged under %s:\n%s", id, logs)
	}
}

// A null result (go-sdk's answer to a handler that returned neither a
// result nor an error) is core/pipeline's Missing: internal_error under an
// incident, as both fronts answer a nil result; a result that is not an
// object at all is an internal_error too, never passed on as a success
// the client cannot read.
func TestResultsThatAreNoResults(t *testing.T) {
	s := start(t)
	for tool, want := range map[string]string{"null_result": "neither a result nor an error", "string_result": "not a valid result"} {
		env := envelopeOf(t, s.call(tool, `{}`))
		id, _ := env["incident_id"].(string)
		if env["error_type"] != "internal_error" || id == "" || env["tool"] != tool {
			t.Errorf("%s: want internal_error with an incident: %v", tool, env)
		}
		if logs := s.logs.String(); !strings.Contains(logs, id) || !strings.Contains(logs, want) {
			t.Errorf("%s: want %q logged under %s:\n%s", tool, want, id, logs)
		}
	}
}

// A multi round-trip result is not a failure: it passes as it is, but for
// the upstream's toolFailure _meta; one that also says isError is an
// error result, enveloped and redacted like any failure.
func TestInputRequiredPassesAndCannotHideAFailure(t *testing.T) {
	s := start(t)
	res := s.call("asks", `{}`)["result"].(map[string]any)
	meta, _ := res["_meta"].(map[string]any)
	if _, forged := meta["io.modelcontextprotocol/toolFailure"]; forged || res["resultType"] != "input_required" || res["inputRequests"] == nil || meta["trace"] != "t1" {
		t.Fatalf("want the input_required result without its toolFailure: %v", res)
	}
	resp := s.call("asks_error", `{}`)
	if env := envelopeOf(t, resp); strings.Contains(fmt.Sprint(resp), "hunter2") {
		t.Fatalf("want a redacted envelope: %v (%v)", resp, env)
	}
}
