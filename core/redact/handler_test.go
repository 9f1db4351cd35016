package redact_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/redact"
)

type dsnValuer struct{ dsn string }

func (d dsnValuer) LogValue() slog.Value { return slog.StringValue(d.dsn) }

type config struct {
	Host     string
	Password string
	Port     int
}

func TestHandlerRedactsEveryPartOfARecord(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse("postgres://app:s-url@db/x")
	for name, newHandler := range map[string]func(*bytes.Buffer) slog.Handler{
		"json": func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
		"text": func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			logger := slog.New(redact.Handler(newHandler(&buf)))
			logger = logger.With("db_password", 8675309, slog.Group("conn", "dsn", "mysql://u:s-with@h/db")).
				WithGroup("req")
			logger.Error("dial postgres://app:s-msg@db/x failed",
				"err", errors.New("open /srv/app/s-err.key: denied"),
				"valuer", dsnValuer{"redis://:s-valuer@cache"},
				slog.Group("login", "clientSecret", "s-group", "user", "bob"),
				"credentials", slog.GroupValue(slog.String("user", "s-secretgroup")),
				"cfg", config{Host: "db", Password: "s-struct", Port: 5432},
				"url", u,
				"body", []byte("token=s-bytes"),
				"apiKey", []string{"s-array"},
				"ok", true, "n", 7,
			)
			out := buf.String()
			for _, s := range []string{"s-with", "8675309", "s-msg", "s-err", "/srv/app", "s-valuer", "s-group", "s-secretgroup",
				"s-struct", "s-url", "s-bytes", "s-array"} {
				assert.NotContains(t, out, s)
			}
			for _, k := range []string{"bob", "5432", "failed", "denied"} {
				assert.Contains(t, out, k, "redaction keeps the record readable")
			}
		})
	}
}

func TestHandlerGroupNamedSecretMasksEverything(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	slog.New(redact.Handler(slog.NewJSONHandler(&buf, nil))).WithGroup("credentials").Info("x", "user", "s-user", "n", 987654)
	assert.NotContains(t, buf.String(), "s-user")
	assert.NotContains(t, buf.String(), "987654")
	require.Panics(t, func() { redact.Handler(nil) })
}

func TestHandlerLocalAndShippedLogs(t *testing.T) {
	t.Parallel()
	var local, shipped bytes.Buffer
	localLog := slog.New(slog.NewJSONHandler(&local, nil))
	shippedLog := slog.New(redact.Handler(slog.NewJSONHandler(&shipped, nil)))
	for _, l := range []*slog.Logger{localLog, shippedLog} {
		l.Error("incident inc_1", "err", "password=hunter2")
	}
	assert.Contains(t, local.String(), "hunter2", "the local log keeps full detail")
	assert.NotContains(t, shipped.String(), "hunter2")
	assert.True(t, strings.Contains(shipped.String(), "inc_1"), "the incident id ties both")
}

// Keys, group names and With attributes are redacted too; an empty group
// name adds no group; bools stay even under a secret key, and so does an
// empty secret.
func TestHandlerKeysGroupsAndLiterals(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := slog.New(redact.Handler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: dropTime})))
	assert.Same(t, l.Handler(), l.Handler().WithGroup(""), "an empty group name adds no group")
	l.WithGroup("").WithGroup("/srv/app/x").With("/etc/k", 1).Info("m",
		"password", true, "token", "", "secret", 3.5, "n", 7, slog.Group("cfg", "db_password", "s-nested"), "nil", nil,
		"bytes", []byte("clean"))
	assert.Equal(t, `{"level":"INFO","msg":"m","[path]":{"[path]":1,"password":true,"token":"","secret":"[REDACTED]","n":7,"cfg":{"db_password":"[REDACTED]"},"nil":null,"bytes":"Y2xlYW4="}}`+"\n", buf.String())
}

// A group nested past the JSON depth bound is masked, not walked: 128
// levels of groups are walked; of 129, the innermost is masked.
func TestHandlerGroupDepthIsBounded(t *testing.T) {
	t.Parallel()
	nest := func(levels int) string {
		v := slog.StringValue("password=hunter2")
		for range levels {
			v = slog.GroupValue(slog.Attr{Key: "g", Value: v})
		}
		var buf bytes.Buffer
		slog.New(redact.Handler(slog.NewJSONHandler(&buf, nil))).Info("m", "deep", v)
		return buf.String()
	}
	for _, levels := range []int{128, 129} {
		out := nest(levels)
		assert.NotContains(t, out, "hunter2")
		assert.Equal(t, levels > 128, strings.Contains(out, `"g":"[REDACTED]"`), "%d levels: %s", levels, out[len(out)-40:])
		assert.Equal(t, levels <= 128, strings.Contains(out, `"g":"password=[REDACTED]"`), "%d levels", levels)
	}
}

type panickingJSON struct{ Path string }

func (panickingJSON) MarshalJSON() ([]byte, error) { panic("boom") }

type failingText struct{}

func (failingText) MarshalText() ([]byte, error) { return nil, errors.New("cannot: open /srv/app/x") }

type panickingText struct{}

func (panickingText) MarshalText() ([]byte, error) { panic("boom") }

// Values that cannot be encoded are still redacted in the form that can,
// and a panicking method never crashes the log call.
func TestHandlerHostileValues(t *testing.T) {
	t.Parallel()
	var js, text bytes.Buffer
	for _, l := range []*slog.Logger{
		slog.New(redact.Handler(slog.NewJSONHandler(&js, nil))),
		slog.New(redact.Handler(slog.NewTextHandler(&text, nil))),
	} {
		l.Info("m", "pj", panickingJSON{Path: "/srv/app/s-pj"}, "ch", make(chan int), "fn", func() {},
			"ft", failingText{}, "pt", panickingText{}, "chpath", chanWithPath{make(chan int), "/srv/app/s-chan"})
	}
	for _, out := range []string{js.String(), text.String()} {
		assert.NotContains(t, out, "s-pj")
		assert.NotContains(t, out, "s-chan")
		assert.NotContains(t, out, "/srv/app")
	}
	assert.Contains(t, text.String(), "pt=", "a panicking MarshalText does not stop the record")
	assert.Contains(t, js.String(), `"chpath":"{C:`, "a value with no JSON form is sent as its redacted text")
}

// A MarshalJSON or MarshalText that panics with, or fails with, a secret:
// slog's handlers print "!PANIC: <value>" and "!ERROR:<err>", so the value
// and the error are redacted like any other text, on every handler.
type dsnPanicJSON struct{}

func (dsnPanicJSON) MarshalJSON() ([]byte, error) {
	panic("dial postgres://orders:s-pj-pw@db.internal:5432/orders failed")
}

type dsnFailJSON struct{}

func (dsnFailJSON) MarshalJSON() ([]byte, error) {
	return nil, errors.New("cannot encode postgres://orders:s-fj-pw@db.internal/orders")
}

type dsnPanicText struct{}

func (dsnPanicText) MarshalText() ([]byte, error) {
	panic("dial postgres://orders:s-pt-pw@db.internal:5432/orders failed")
}

func TestHandlerRedactsWhatAPanickingMarshalerSays(t *testing.T) {
	t.Parallel()
	for name, newHandler := range map[string]func(*bytes.Buffer) slog.Handler{
		"JSONHandler": func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
		"TextHandler": func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
	} {
		var buf bytes.Buffer
		slog.New(redact.Handler(newHandler(&buf))).Info("m", "pj", dsnPanicJSON{}, "fj", dsnFailJSON{}, "pt", dsnPanicText{})
		out := buf.String()
		for _, secret := range []string{"s-pj-pw", "s-fj-pw", "s-pt-pw"} {
			assert.NotContains(t, out, secret, "%s: %s", name, out)
		}
		assert.Contains(t, out, "postgres://orders:[REDACTED]@db.internal", "%s: the rest of the message stays readable: %s", name, out)
	}
}

type chanWithPath struct {
	C    chan int
	Path string
}

// printed values answer every verb with the redacted text.
func TestHandlerPrintedValueVerbs(t *testing.T) {
	t.Parallel()
	var got slog.Value
	capture := captureHandler(func(r slog.Record) {
		r.Attrs(func(a slog.Attr) bool { got = a.Value; return true })
	})
	slog.New(redact.Handler(capture)).Info("m", "cfg", config{Host: "db", Password: "s-struct"})
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		assert.Equal(t, "{Host:db Password:[REDACTED] Port:0}", fmt.Sprintf(verb, got.Any()), verb)
	}
	b, err := json.Marshal(got.Any())
	require.NoError(t, err)
	assert.Equal(t, `{"Host":"db","Password":"[REDACTED]","Port":0}`, string(b))
	txt, err := got.Any().(interface{ MarshalText() ([]byte, error) }).MarshalText()
	require.NoError(t, err)
	assert.Equal(t, "{Host:db Password:[REDACTED] Port:0}", string(txt))
}

// Enabled is the wrapped handler's, and a nil handler is refused when the
// Handler is built.
func TestHandlerDelegatesEnabled(t *testing.T) {
	t.Parallel()
	h := redact.Handler(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	assert.False(t, h.Enabled(context.Background(), slog.LevelInfo))
	assert.True(t, h.Enabled(context.Background(), slog.LevelError))
	assert.Panics(t, func() { redact.Handler(nil) })
}

type captureHandler func(slog.Record)

func (captureHandler) Enabled(context.Context, slog.Level) bool        { return true }
func (c captureHandler) Handle(_ context.Context, r slog.Record) error { c(r); return nil }
func (c captureHandler) WithAttrs([]slog.Attr) slog.Handler            { return c }
func (c captureHandler) WithGroup(string) slog.Handler                 { return c }

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}
