package redact_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/core/redact"
)

// login hides its password the way Go programmers do: json:"-", and an
// unexported field. JSON never shows them; slog.TextHandler prints %+v,
// which shows both.
type login struct {
	User     string
	Secret   string `json:"-"`
	password string
}

// stringerConfig's JSON is clean; its String method, which %v and %+v
// call, is not.
type stringerConfig struct{ Host string }

func (stringerConfig) String() string { return "dsn postgres://app:s-stringer@db/x" }

// textToken is printed by TextHandler through MarshalText and encoded by
// JSONHandler as that text.
type textToken struct{}

func (textToken) MarshalText() ([]byte, error) { return []byte("token=s-marshaltext"), nil }

// stackError prints a stack trace with %+v, as pkg/errors' errors do.
type stackError struct{}

func (stackError) Error() string { return "query failed" }
func (stackError) Format(f fmt.State, verb rune) {
	_, _ = fmt.Fprint(f, "query failed")
	if f.Flag('+') {
		_, _ = fmt.Fprint(f, "\nmain.query\n\t/srv/shop/s-stackerr/db.go:42")
	}
}

// loginValuer logs a struct that hides a field from JSON.
type loginValuer struct{}

func (loginValuer) LogValue() slog.Value {
	return slog.AnyValue(login{User: "bob", Secret: "s-valuer-dash", password: "s-valuer-unexported"})
}

type panickingValuer struct{}

func (panickingValuer) LogValue() slog.Value { panic("boom") }

// fmtHandler stands for any handler: it prints every value with %v, %+v,
// Value.String and json.Marshal.
type fmtHandler struct {
	buf   *bytes.Buffer
	attrs []slog.Attr
}

func (h fmtHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h fmtHandler) Handle(_ context.Context, r slog.Record) error {
	fmt.Fprintln(h.buf, r.Message)
	print := func(a slog.Attr) bool {
		v := a.Value.Resolve()
		b, _ := json.Marshal(v.Any())
		fmt.Fprintf(h.buf, "%s=%v %+v %s %s\n", a.Key, v.Any(), v.Any(), v.String(), b)
		return true
	}
	for _, a := range h.attrs {
		print(a)
	}
	r.Attrs(print)
	return nil
}
func (h fmtHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return fmtHandler{h.buf, append(append([]slog.Attr(nil), h.attrs...), as...)}
}
func (h fmtHandler) WithGroup(string) slog.Handler { return h }

// plantedSecrets logs one record holding a planted secret in every form a
// value can take, and returns the secrets and what must stay readable.
func logPlanted(l *slog.Logger) (secrets, readable []string) {
	u, _ := url.Parse("postgres://app:s-url@db/x")
	l = l.With("with", login{User: "bob", Secret: "s-with-dash", password: "s-with-unexported"}).WithGroup("req")
	l.Error("dial failed",
		"cfg", login{User: "bob", Secret: "s-dash", password: "s-unexported"},
		"ptr", &login{User: "bob", Secret: "s-ptr-dash"},
		"list", []login{{User: "bob", Secret: "s-list-dash"}},
		"map", map[string]any{"inner": login{User: "bob", Secret: "s-map-dash"}},
		"typedmap", map[string]login{"a": {User: "bob", password: "s-typedmap"}},
		"stringer", stringerConfig{Host: "db"},
		"text", textToken{},
		"err", stackError{},
		"valuer", loginValuer{},
		"panicky", panickingValuer{},
		"url", u,
		"raw", json.RawMessage(`{"password":"s-raw"}`),
		slog.Group("g", "cfg", login{User: "bob", Secret: "s-group-dash"}),
	)
	secrets = []string{"s-with-dash", "s-with-unexported", "s-dash", "s-unexported", "s-ptr-dash", "s-list-dash",
		"s-map-dash", "s-typedmap", "s-stringer", "s-marshaltext", "s-stackerr", "s-valuer-dash", "s-valuer-unexported",
		"s-url", "s-raw", "s-group-dash", "/srv/shop", "db.go:42", ".go:"}
	return secrets, []string{"dial failed", "bob", "query failed", "LogValue panicked"}
}

// Every slog handler, built-in or not, prints what Handler passes on in
// its own way; none may print a planted secret.
func TestHandlerRedactsWhatEachHandlerPrints(t *testing.T) {
	t.Parallel()
	for name, newHandler := range map[string]func(*bytes.Buffer) slog.Handler{
		"JSONHandler": func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
		"TextHandler": func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
		"any handler": func(b *bytes.Buffer) slog.Handler { return fmtHandler{buf: b} },
		"twice":       func(b *bytes.Buffer) slog.Handler { return redact.Handler(slog.NewTextHandler(b, nil)) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			secrets, readable := logPlanted(slog.New(redact.Handler(newHandler(&buf))))
			assertRedacted(t, buf.String(), secrets, readable)
		})
	}
}

// The default handler (slog.Default before any SetDefault) writes through
// the log package; it is global, so this test is not parallel.
func TestHandlerRedactsWhatTheDefaultHandlerPrints(t *testing.T) {
	var buf bytes.Buffer
	w, flags := log.Writer(), log.Flags()
	log.SetOutput(&buf)
	log.SetFlags(0)
	defer func() { log.SetOutput(w); log.SetFlags(flags) }()
	secrets, readable := logPlanted(slog.New(redact.Handler(slog.Default().Handler())))
	assertRedacted(t, buf.String(), secrets, readable)
}

func assertRedacted(t *testing.T, out string, secrets, readable []string) {
	t.Helper()
	for _, s := range secrets {
		assert.NotContains(t, out, s)
	}
	for _, k := range readable {
		assert.Contains(t, out, k, "redaction keeps the record readable")
	}
	if t.Failed() {
		t.Log(out)
	}
}

// JSONHandler still gets structured JSON for a value whose text form had
// to be redacted, and TextHandler the value's own text form.
func TestHandlerKeepsEachFormOfARedactedValue(t *testing.T) {
	t.Parallel()
	v := login{User: "bob", Secret: "s-dash"}
	var js, text bytes.Buffer
	slog.New(redact.Handler(slog.NewJSONHandler(&js, nil))).Info("m", "cfg", v, "clean", login{User: "ann"})
	slog.New(redact.Handler(slog.NewTextHandler(&text, nil))).Info("m", "cfg", v)
	assert.Contains(t, js.String(), `"cfg":{"User":"bob"}`)
	assert.Contains(t, js.String(), `"clean":{"User":"ann"}`)
	assert.Contains(t, text.String(), `cfg="{User:bob Secret:[REDACTED] password:}"`)
	assert.False(t, strings.Contains(text.String(), "s-dash"))
}
