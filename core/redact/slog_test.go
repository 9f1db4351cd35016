package redact_test

import (
	"bytes"
	"errors"
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
