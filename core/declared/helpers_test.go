package declared_test

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// field returns the field error for path, failing when there is none.
func field(t testing.TB, env *envelope.Envelope, path string) envelope.FieldError {
	t.Helper()
	for _, f := range env.Fields {
		if f.Field == path {
			return f
		}
	}
	t.Fatalf("no field error for %q in %+v", path, env.Fields)
	return envelope.FieldError{}
}

// rules lists env's fields as "path:rule", in order.
func rules(env *envelope.Envelope) string {
	var got []string
	for _, f := range env.Fields {
		got = append(got, f.Field+":"+f.Rule)
	}
	return strings.Join(got, " ")
}

// logs captures slog records.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// logger writes text records, whose attributes a test can read as
// key=value.
func (l *logs) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

// tool is the tool the checks' failures are rendered for.
const tool = "read_file"

// maxFailureBytes is the bound the README states for a validation failure
// (24 KiB), less room for the JSON-RPC frame, as core/validate's tests
// hold the binder to it.
const maxFailureBytes = 24<<10 - 512
