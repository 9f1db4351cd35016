package wiretest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/wiretest"
)

// recorder is a testing.TB that keeps what the assertions report instead
// of failing the test, so each assertion can be shown to fail.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
	logs   []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Log(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprint(args...))
}

func (r *recorder) failed(t *testing.T, want string) {
	t.Helper()
	for _, e := range r.errors {
		if strings.Contains(e, want) {
			return
		}
	}
	t.Errorf("want a failure containing %q, got %q", want, r.errors)
}

func (r *recorder) passed(t *testing.T) {
	t.Helper()
	if len(r.errors) > 0 {
		t.Errorf("want no failure, got %q", r.errors)
	}
}

// envelope renders err for tool as the core renders it for every front.
func envelope(tool string, err error) string {
	env := core.NewRenderer().Error(context.Background(), core.Call{Tool: tool}, err)
	b, _ := json.Marshal(env)
	return string(b)
}

// result is a JSON-RPC response whose result has the given text items.
func result(isError bool, structured string, texts ...string) []byte {
	content := make([]map[string]any, len(texts))
	for i, t := range texts {
		content[i] = map[string]any{"type": "text", "text": t}
	}
	res := map[string]any{"content": content, "isError": isError}
	if structured != "" {
		res["structuredContent"] = json.RawMessage(structured)
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": res})
	return b
}

func decode(t *testing.T, raw []byte, args any) (*wiretest.Response, *recorder) {
	t.Helper()
	rec := &recorder{TB: t}
	r, err := wiretest.Decode(rec, "shop_get", raw, args)
	if err != nil {
		t.Fatal(err)
	}
	return r, rec
}

func TestAnEnvelopePassesExpectError(t *testing.T) {
	env := envelope("shop_get", fmt.Errorf("product p-9: %w", core.ErrNotFound))
	r, rec := decode(t, result(true, env, env), nil)
	if !r.IsError() || r.Envelope == nil || r.Envelope.ErrorType != core.NotFound {
		t.Fatalf("decoded %+v", r)
	}
	r.ExpectError(core.NotFound)
	r.ExpectMessage("product p-9")
	r.ExpectNextStep("Verify the identifier")
	r.NoLeak()
	rec.passed(t)
	if r.Text() != env || string(r.StructuredContent()) != env {
		t.Errorf("Text %q, StructuredContent %s", r.Text(), r.StructuredContent())
	}
}

func TestExpectErrorFailsOnEveryBreachOfTheContract(t *testing.T) {
	env := envelope("shop_get", core.ErrNotFound)
	other := envelope("shop_get", core.ErrAccessDenied)
	for name, tc := range map[string]struct {
		raw  []byte
		want string
	}{
		"a JSON-RPC error":           {[]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}`), "got JSON-RPC error -32603"},
		"a success":                  {result(false, "", "ok"), "got a successful result"},
		"no envelope":                {result(true, "", "plain text"), "without one"},
		"another code":               {result(true, "", other), `want "not_found"`},
		"another tool":               {result(true, "", envelope("shop_list", core.ErrNotFound)), `names tool "shop_list"`},
		"no next steps":              {result(true, "", strings.Replace(env, `"next_steps":[`, `"next_steps":[],"x":[`, 1)), "does not decode strictly"},
		"structured content differs": {result(true, other, env), "structuredContent differs"},
		"structured content invalid": {result(true, `{"success":true}`, env), "structuredContent"},
	} {
		t.Run(name, func(t *testing.T) {
			r, rec := decode(t, tc.raw, nil)
			r.ExpectError(core.NotFound)
			rec.failed(t, tc.want)
		})
	}
}

func TestDecodeStrictRefusesWhatNoEnvelopeIs(t *testing.T) {
	good := envelope("t", core.ErrNotFound)
	if _, err := wiretest.DecodeStrict([]byte(good)); err != nil {
		t.Fatalf("a rendered envelope: %v", err)
	}
	for name, b := range map[string]string{
		"not an object":     `[1]`,
		"unknown member":    strings.Replace(good, `{`, `{"extra":1,`, 1),
		"success true":      strings.Replace(good, `"success":false`, `"success":true`, 1),
		"invalid code":      strings.Replace(good, `"not_found"`, `"lost"`, 1),
		"null next steps":   regexp.MustCompile(`"next_steps":\[[^\]]*\]`).ReplaceAllString(good, `"next_steps":null`),
		"no retryable":      strings.Replace(good, `,"retryable":false`, ``, 1),
		"no success member": strings.Replace(good, `"success":false,`, ``, 1),
	} {
		if _, err := wiretest.DecodeStrict([]byte(b)); err == nil {
			t.Errorf("%s: %s decoded", name, b)
		}
	}
}

func TestSuccessAndProtocolErrorAssertions(t *testing.T) {
	ok, rec := decode(t, result(false, `{"id":"p-1"}`, "Lamp", "Next steps: call shop_list"), nil)
	ok.ExpectSuccess()
	ok.ExpectNextStep("call shop_list")
	rec.passed(t)
	ok.ExpectProtocolError(-32602)
	ok.ExpectMessage("x")
	ok.ExpectNextStep("nothing like it")
	ok.ExpectField("id", "")
	rec.failed(t, "want JSON-RPC error -32602, got a result")
	rec.failed(t, "got no envelope")
	rec.failed(t, `no next step contains "nothing like it"`)
	rec.failed(t, `no field error for "id"`)

	proto, rec := decode(t, []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown tool"}}`), nil)
	proto.ExpectProtocolError(-32602)
	rec.passed(t)
	if proto.IsError() || proto.StructuredContent() != nil {
		t.Error("a JSON-RPC error is no isError result")
	}
	proto.ExpectProtocolError(-32603)
	proto.ExpectSuccess()
	rec.failed(t, "code = -32602, want -32603")
	rec.failed(t, "got JSON-RPC error -32602")

	failed, rec := decode(t, result(true, "", envelope("shop_get", core.ErrNotFound)), nil)
	failed.ExpectSuccess()
	failed.ExpectNextStep("nowhere")
	rec.failed(t, "want success, got isError result")
	rec.failed(t, "next_steps =")
}

func TestFieldErrors(t *testing.T) {
	err := core.AddFields(core.New(core.ValidationError, "invalid arguments"),
		core.FieldError{Field: "limit", Rule: "max", Param: "50", Message: "limit must be at most 50"})
	r, rec := decode(t, result(true, "", envelope("shop_get", err)), nil)
	r.ExpectError(core.ValidationError)
	r.ExpectField("limit", "max")
	r.ExpectField("limit", "")
	rec.passed(t)
	if f := r.Field("limit"); f == nil || f.Param != "50" {
		t.Errorf("Field(limit) = %+v", f)
	}
	if r.Field("query") != nil {
		t.Error("a field that failed nothing has no field error")
	}
	r.ExpectField("limit", "min")
	r.ExpectField("query", "")
	rec.failed(t, `failed rule "max", want "min"`)
	rec.failed(t, `fields = ["limit:max"]`)
}

func TestDecodeRefusesWhatIsNoResponse(t *testing.T) {
	for _, raw := range []string{`not json`, `{"result":"a string"}`} {
		if _, err := wiretest.Decode(&recorder{TB: t}, "t", []byte(raw), nil); err == nil {
			t.Errorf("%s decoded", raw)
		}
	}
}

func TestLeaksFindsWhatTheRedactorRemoves(t *testing.T) {
	raw := result(true, "", `{"message":"open /home/alice/.ssh/id_rsa: dial postgres://app:hunter2@db/prod"}`)
	got := wiretest.Leaks(raw, nil, []string{"hunter2", ""})
	joined := strings.Join(got, "\n")
	for _, want := range []string{"password in a URL", "absolute file path", "a secret (hu"} {
		if !strings.Contains(joined, want) {
			t.Errorf("Leaks = %q, want one naming %q", got, want)
		}
	}
	if last := got[len(got)-1]; strings.Contains(last, "hunter2") {
		t.Errorf("Leaks repeats a secret it was given: %q", last)
	}
	// A path the call's own arguments hold is no leak.
	sent := wiretest.Leaks(result(true, "", "open /home/alice/todo.md: permission denied"), map[string]any{"path": "/home/alice/todo.md"}, nil)
	if len(sent) != 0 {
		t.Errorf("the agent's own path reported as a leak: %q", sent)
	}
	// A secret-named argument's value is a leak however plain it looks.
	echoed := wiretest.Leaks(result(true, "", "login failed for bob with s3cr3t-value-1"), json.RawMessage(`{"user":"bob","password":"s3cr3t-value-1"}`), nil)
	if len(echoed) != 1 || !strings.Contains(echoed[0], "a value the call sent under a secret-named key") {
		t.Errorf("Leaks = %q, want the password the call sent", echoed)
	}
	if l := wiretest.Leaks([]byte("plain text, not JSON, with no secret"), nil, nil); len(l) != 0 {
		t.Errorf("clean text: %q", l)
	}
	r, rec := decode(t, raw, nil)
	r.NoLeak("hunter2")
	rec.failed(t, "response leaks")
}

func TestLogFindsTheIncidentOfAResponse(t *testing.T) {
	rec := &recorder{TB: t}
	log := wiretest.NewLog(rec)
	env := core.NewRenderer().Internal("shop_get", "inc-42")
	b, _ := json.Marshal(env)
	r, _ := decode(t, result(true, "", string(b)), nil)

	log.Logger().Error("panic recovered", "incident_id", "inc-42", "panic", "assignment to entry in nil map")
	if len(log.Records()) != 1 || len(rec.logs) != 1 {
		t.Fatalf("records %v, test log %v", log.Records(), rec.logs)
	}
	if got := log.ExpectIncident(r, "nil map"); got == nil || got["panic"] != "assignment to entry in nil map" {
		t.Errorf("ExpectIncident = %v", got)
	}
	rec.passed(t)
	log.ExpectIncident(r, "not in the record")
	rec.failed(t, `does not contain "not in the record"`)

	other, _ := decode(t, result(true, "", envelope("shop_get", core.ErrNotFound)), nil)
	log.ExpectIncident(other)
	rec.failed(t, "want an envelope with an incident_id")
	b, _ = json.Marshal(core.NewRenderer().Internal("shop_get", "inc-43"))
	unlogged, _ := decode(t, result(true, "", string(b)), nil)
	log.ExpectIncident(unlogged)
	rec.failed(t, "no log record for incident inc-43")
	if log.Find("incident_id", "inc-43") != nil {
		t.Error("Find found a record never logged")
	}
}

func TestDescribeIsBounded(t *testing.T) {
	r, _ := decode(t, result(false, "", strings.Repeat("x", 10_000)), nil)
	if d := r.Describe(); len(d) > 2100 || !strings.HasSuffix(d, "…") {
		t.Errorf("Describe is %d bytes", len(d))
	}
}
