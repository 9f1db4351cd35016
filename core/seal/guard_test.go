package seal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/seal"
	"github.com/mcpguard/mcpguard/core/wire"
)

// records captures a Guard's log as JSON records.
type records struct{ buf bytes.Buffer }

func (r *records) logger() *slog.Logger { return slog.New(slog.NewJSONHandler(&r.buf, nil)) }

// all returns every record logged, decoded.
func (r *records) all(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(r.buf.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, rec)
	}
	return out
}

// one returns the only record logged.
func (r *records) one(t *testing.T) map[string]any {
	t.Helper()
	all := r.all(t)
	if len(all) != 1 {
		t.Fatalf("want one log record, got %d: %s", len(all), r.buf.String())
	}
	return all[0]
}

type principal struct{}

// caller reads the principal a test put in the context.
func caller(ctx context.Context) string { s, _ := ctx.Value(principal{}).(string); return s }

func as(who string) context.Context { return context.WithValue(context.Background(), principal{}, who) }

// flipMiddle changes one character in the middle of a sealed state, six
// bits of its ciphertext.
func flipMiddle(s string) string {
	b := []byte(s)
	if i := len(b) / 2; b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

// A state handed out with a result opens when the client echoes it on the
// same call, however the client re-encodes the arguments, and nothing is
// logged.
func TestGuardOpensWhatItSealed(t *testing.T) {
	var log records
	g := seal.NewGuard(ring(t, "k1:"+key(1)), log.logger(), caller)
	sealed, err := g.Seal(g.Binding(as("alice"), "deploy", []byte(`{"env":"staging","n":1}`)), "step=2")
	if err != nil {
		t.Fatal(err)
	}
	echo := g.Binding(as("alice"), "deploy", []byte(` { "n" : 1, "env" : "stag\u0069ng" } `))
	got, err := g.Open(as("alice"), echo, sealed)
	if err != nil || got != "step=2" {
		t.Fatalf("Open = %q, %v; want step=2", got, err)
	}
	if log.buf.Len() != 0 {
		t.Fatalf("an opened state was logged: %s", log.buf.String())
	}
}

// The binding names the method, the tool, the arguments' digest and the
// caller the Guard reads; without a Caller it binds none.
func TestGuardBinding(t *testing.T) {
	args := []byte(`{"env":"staging"}`)
	want := seal.Binding{Method: seal.MethodCallTool, Name: "deploy", Caller: "alice", Arguments: wire.ArgumentsDigest(args)}
	if got := seal.NewGuard(nil, nil, caller).Binding(as("alice"), "deploy", args); got != want {
		t.Errorf("Binding = %+v\nwant      %+v", got, want)
	}
	want.Caller = ""
	if got := seal.NewGuard(nil, nil, nil).Binding(as("alice"), "deploy", args); got != want {
		t.Errorf("Binding without a Caller = %+v\nwant                      %+v", got, want)
	}
}

// Whatever the reason a state does not open, the client receives the
// same validation_error, which tells it to start over and nothing of the
// reason; the reason goes to the server's log at Warn with the tool.
func TestGuardRefusesAlikeAndLogsWhy(t *testing.T) {
	args := []byte(`{"env":"staging"}`)
	cases := []struct {
		name   string
		ctx    context.Context
		tool   string
		args   []byte
		sealed func(string) string
		reason error
	}{
		{"another caller", as("mallory"), "deploy", args, nil, seal.ErrBinding},
		{"another tool", as("alice"), "destroy", args, nil, seal.ErrBinding},
		{"other arguments", as("alice"), "deploy", []byte(`{"env":"production"}`), nil, seal.ErrBinding},
		{"altered", as("alice"), "deploy", args, flipMiddle, seal.ErrTampered},
		{"not sealed", as("alice"), "deploy", args, func(string) string { return "step=2" }, seal.ErrTampered},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var log records
			g := seal.NewGuard(ring(t, "k1:"+key(1)), log.logger(), caller)
			sealed, err := g.Seal(g.Binding(as("alice"), "deploy", args), "step=2")
			if err != nil {
				t.Fatal(err)
			}
			if c.sealed != nil {
				sealed = c.sealed(sealed)
			}
			got, err := g.Open(c.ctx, g.Binding(c.ctx, c.tool, c.args), sealed)
			if got != "" || err == nil {
				t.Fatalf("Open = %q, %v; want a refusal", got, err)
			}
			env := envelope.NewRenderer().Error(context.Background(), envelope.Call{Tool: c.tool}, err)
			if env.ErrorType != envelope.ValidationError || env.Message != seal.RefusedMessage ||
				len(env.NextSteps) != 1 || env.NextSteps[0] != seal.RefusedStep {
				t.Errorf("client receives %s", env.Marshal())
			}
			rec := log.one(t)
			if rec["level"] != "WARN" || rec["msg"] != seal.LogMessage || rec["tool"] != c.tool || rec["error"] != c.reason.Error() {
				t.Errorf("log record = %v, want WARN %q tool=%s error=%q", rec, seal.LogMessage, c.tool, c.reason)
			}
			if _, ok := rec["hint"]; ok {
				t.Errorf("a hint about key rings for %v: %v", c.reason, rec["hint"])
			}
		})
	}
}

// A state sealed under a key this server lacks is refused as the others
// are, and the log says where the fix is: a server with no configured
// ring seals with a key of its own process; one with a ring lacks the
// key in it.
func TestGuardUnknownKeyHint(t *testing.T) {
	b := seal.Binding{Method: seal.MethodCallTool, Name: "deploy"}
	cases := []struct {
		name      string
		sealer    *seal.Guard
		opener    *seal.KeyRing
		wantInLog string
	}{
		{"no ring: another process", seal.NewGuard(nil, nil, nil), nil, "this server has no key ring"},
		{"rings differ", seal.NewGuard(ring(t, "old:"+key(1)), nil, nil), ring(t, "new:"+key(2)), "the key is not in this server's key ring"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sealed, err := c.sealer.Seal(b, "step=2")
			if err != nil {
				t.Fatal(err)
			}
			var log records
			g := seal.NewGuard(c.opener, log.logger(), nil)
			if _, err := g.Open(context.Background(), b, sealed); envelope.CodeOf(err) != envelope.ValidationError {
				t.Fatalf("Open: err = %v, want the refusal", err)
			}
			rec := log.one(t)
			hint, _ := rec["hint"].(string)
			if rec["error"] != seal.ErrUnknownKey.Error() || !strings.HasPrefix(hint, c.wantInLog) ||
				!strings.Contains(hint, "docs/protocol-2026-07-28.md#keys") {
				t.Errorf("log record = %v, want error %q and a hint starting %q naming the docs", rec, seal.ErrUnknownKey, c.wantInLog)
			}
		})
	}
}

// A Guard without a logger logs to slog's default at the time of the call.
func TestGuardLogsToTheDefaultLogger(t *testing.T) {
	var log records
	prev := slog.Default()
	slog.SetDefault(log.logger())
	t.Cleanup(func() { slog.SetDefault(prev) })
	g := seal.NewGuard(nil, nil, nil)
	if _, err := g.Open(context.Background(), seal.Binding{Name: "deploy"}, "x"); err == nil {
		t.Fatal("Open of a state never sealed succeeded")
	}
	if rec := log.one(t); rec["msg"] != seal.LogMessage || rec["tool"] != "deploy" {
		t.Errorf("default logger got %v", rec)
	}
}

// A state over the Sealer's bound is the server's failure, not the
// client's: an internal error, still matching ErrTooLarge for the log.
func TestGuardSealTooLargeIsInternal(t *testing.T) {
	g := seal.NewGuard(nil, nil, nil, seal.WithMaxState(4))
	sealed, err := g.Seal(seal.Binding{Name: "deploy"}, "12345")
	if sealed != "" || envelope.CodeOf(err) != envelope.InternalError || !errors.Is(err, seal.ErrTooLarge) {
		t.Fatalf("Seal = %q, %v; want an internal error wrapping ErrTooLarge", sealed, err)
	}
	if sealed, err := g.Seal(seal.Binding{Name: "deploy"}, "1234"); err != nil || sealed == "" {
		t.Fatalf("Seal at the bound = %q, %v", sealed, err)
	}
}
